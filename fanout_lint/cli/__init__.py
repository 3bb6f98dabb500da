"""The command line: arguments, the commands, and how a run ends on the terminal."""
