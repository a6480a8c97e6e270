"""Re-adjudicating games saved by other engines, to compare them with ours (not our rules)."""
