"""Search and exact analysis: solvers behind one protocol, Monte-Carlo and rollout
teachers, and matrix games solved by LP."""
