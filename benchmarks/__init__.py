"""Speed benchmarks of mlhidden's methods against the obvious scikit-learn routes (``make bench``)."""
