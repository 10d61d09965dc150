"""Private machine learning: DP-SGD."""
