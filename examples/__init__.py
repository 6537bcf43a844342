"""Worked examples that build on the public extension points (not installed with the package)."""
