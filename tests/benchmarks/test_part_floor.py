"""benchmarks/part_floor.py: each part of a run timed with the fits shared as a run shares them, its products'
FLOPs counted, and its floor at the measured rates."""

from benchmarks.part_floor import PARTS, bench_parts, render_parts
from mlhidden.data import load_dataset


def test_each_part_counts_only_the_products_it_computes_and_its_floor_is_its_flops_at_the_measured_rates():
    data = load_dataset("Medical")
    X, Y = data.X[:300], data.Y[:300]
    rates = {("gemm", "float32"): 50.0, ("gemm", "float64"): 25.0}  # as measured once per run
    result = bench_parts(X, data.X[300:400], Y, seed=0, n_epochs=5, rates=rates, log=lambda line: None)
    parts = result["parts"]
    assert list(parts) == list(PARTS)
    assert parts["BR_RF"]["floor"] is None and parts["BR_RF"]["gflop"] == 0
    modelled = [p for name, p in parts.items() if name != "BR_RF"]
    assert all(p["gflop"] > 0 and 0 < p["floor"] for p in modelled)
    # The chain is fitted once, by CCASL: CCASL+BR's own part adds only its output layer's products.
    assert parts["CCASL+BR own"]["gflop"] < parts["CCASL chain"]["gflop"] / 2
    assert result["rates"][("sparse", "float32")] > 0 and result["rates"][("gemm", "float64")] > 0

    lines, _ = render_parts({"Medical": result}, n_epochs=5)
    text = "\n".join(lines)
    assert "| Medical | BR_RF |" in text and "| BR_RF |" in text
    chain = parts["CCASL chain"]
    assert f"| {chain['floor'] / chain['seconds']:.0%} |" in text
    assert "MLP trained 5 epochs (its default is 1000)" in text
