"""Primi Composti (versions 1 and 2): rules engine, observation encoder, env, fast path and solver."""
