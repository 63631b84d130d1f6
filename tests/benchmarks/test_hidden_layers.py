"""benchmarks/hidden_layers.py: the ccasl section's count of every link's L-BFGS iterations, and its verdict."""

import numpy as np

from benchmarks.generated import make_delicious_like
from benchmarks.hidden_layers import bench_ccasl, link_iterations, render_ccasl
from mlhidden.methods.registry import make_method


def test_the_ccasl_section_counts_each_chains_iterations_and_states_their_ratio_in_the_l1000_verdict():
    data = make_delicious_like(n_samples=400, n_features=60, n_labels=12)
    X, Y = data.X[:300], np.asarray(data.Y)[:300]
    result = bench_ccasl(X, data.X[300:], Y, seed=0, repeats=1, log=lambda line: None, gaps=False)

    cc = make_method("CC", random_state=0).fit(X, Y)
    ccasl = make_method("CCASL", random_state=0).fit(X, Y)
    expected = {
        "CC": sum(int(m.n_iter_[0]) for m in cc.estimators_ if hasattr(m, "n_iter_")),
        "CCASL": sum(int(m.n_iter_[0]) for m in ccasl.chain_.estimators_ if hasattr(m, "n_iter_")),
    }
    assert result["link_iterations"] == expected
    assert link_iterations(ccasl.chain_.estimators_) == expected["CCASL"] > expected["CC"] > 0

    lines, verdicts = render_ccasl({"Delicious-synthetic": result})
    ratio = expected["CCASL"] / expected["CC"]
    assert lines[-2].endswith(f"| {expected['CC']} / {expected['CCASL']} ({ratio:.2f}x) |")
    (large,) = [v for v in verdicts if "L = 1000" in v]
    assert f"its links take {ratio:.2f}x CC's L-BFGS iterations" in large
