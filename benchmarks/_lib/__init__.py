"""Code the benchmark scripts share: tasks, peers, published figures, report tables."""
