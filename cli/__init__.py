"""The command line: every ``diplomat`` subcommand, each in the module of its job; the only
package that wires the others together."""
