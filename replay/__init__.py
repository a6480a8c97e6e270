"""Re-adjudicating games saved by other engines to compare them with ours: a tool, not part
of our rules."""
