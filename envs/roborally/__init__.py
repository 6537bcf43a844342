"""RoboRally (classic priority-card edition): cards, programs, rules engine and environments."""
