"""The hook engine: points, results, matchers, the registry and the fold."""
