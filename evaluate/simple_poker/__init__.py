"""Simple poker's evaluation jobs: exact payoffs, value and exploitability (`exact`)."""
