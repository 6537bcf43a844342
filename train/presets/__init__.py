"""Per-game training presets: `train/presets/<game>.py` defines `PRESET` (a dict)."""
