"""Training: MaskablePPO through the single-agent adapter for every game (`python -m train`)."""
