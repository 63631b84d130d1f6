"""The fitting internals behind CCASL's chain (centred L-BFGS, dense synthetic block) and MLP (float32)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from mlhidden.blas_kernel import blas_kernel
from mlhidden.data import load_dataset
from mlhidden.methods import CCASL, MLP
from mlhidden.methods.epoch_passes import sigmoid_of_sum
from mlhidden.methods.hidden_units import ThresholdUnits
from mlhidden.methods.mlp import train_network
from mlhidden.methods.solvers.batched_logistic import fit_batched_logistic
from mlhidden.methods.solvers.design import Design, loss_and_residual, positive_entries

TIGHT = {"tol": 1e-8, "max_iter": 10**5}


@pytest.fixture(scope="module")
def synthetic_links(mirror_dir):
    """The synthetic links of a CCASL chain on Medical's first 600 rows: z_k on [x, z_1..z_{k-1}]."""
    X = load_dataset(mirror_dir / "Medical.arff").X[:600]
    Z = ThresholdUnits(n_units=24, random_state=0).fit_transform(X).astype(np.float64)
    mask = np.arange(Z.shape[1])[:, None] < np.arange(Z.shape[1])
    return X, Z, mask


def objectives(X, Z, fit, C=1.0):
    """Each link's objective on [X, Z]: mean log-loss plus ||w||^2 / (2 C n)."""
    scores = np.asarray(X @ fit.coef[: X.shape[1]]) + Z @ fit.coef[X.shape[1] :] + fit.intercept
    return (np.logaddexp(0, scores) - Z * scores).mean(axis=0) + (fit.coef**2).sum(axis=0) / (2 * C * X.shape[0])


def test_synthetic_labels_go_to_a_dense_block_next_to_sparse_x(synthetic_links):
    X, Z, _ = synthetic_links
    design = Design(X, Z, center=True)
    assert set(range(X.shape[1], X.shape[1] + Z.shape[1])) <= set(design.dense_columns.tolist())
    assert design.dense_columns.size < X.shape[1] // 10 + Z.shape[1]
    V = np.random.RandomState(0).normal(size=(X.shape[1] + Z.shape[1] + 1, 3))
    plain = Design(X, Z)
    centred_scores = plain.forward(V) - np.concatenate([np.asarray(X.mean(axis=0)).ravel(), Z.mean(axis=0)]) @ V[:-1]
    np.testing.assert_allclose(design.forward(V), centred_scores, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_dense_block_split_from_each_part_gives_the_stacked_designs_products(synthetic_links, dtype):
    """Splitting X and the extra columns apart gives the bits of splitting their sparse stack (the old way)."""
    X, Z, _ = synthetic_links
    rare = (np.random.RandomState(1).uniform(size=(X.shape[0], 5)) < 0.03).astype(np.float64)
    extra = np.hstack([rare[:, :2], Z[:, :10], rare[:, 2:], Z[:, 10:]])
    design = Design(X, extra, dense_block=True, dtype=dtype)
    stacked = sp.hstack([X, sp.csr_matrix(extra)], format="csr")
    density = np.diff(sp.csc_matrix(stacked).indptr) / X.shape[0]
    assert np.array_equal(design.dense_columns, np.flatnonzero(density >= 0.125))
    assert design.dense_columns.size >= Z.shape[1] and {X.shape[1], X.shape[1] + 1} <= set(
        design.sparse_columns.tolist()
    )
    dense = stacked[:, design.dense_columns].toarray().astype(dtype)
    sparse = stacked[:, design.sparse_columns].astype(dtype)
    rng = np.random.RandomState(0)
    V, R = rng.normal(size=(design.n_inputs + 1, 7)), rng.normal(size=(X.shape[0], 7))
    forward = np.asarray(sparse @ V[design.sparse_columns].astype(dtype))
    forward += dense @ V[design.dense_columns].astype(dtype)
    assert np.array_equal(design.forward(V), forward + V[-1])
    backward = np.empty((design.n_inputs + 1, 7))
    backward[design.sparse_columns] = sparse.T @ R.astype(dtype)
    backward[design.dense_columns] = dense.T @ R.astype(dtype)
    backward[-1] = R.sum(axis=0)
    assert np.array_equal(design.backward(R), backward)
    centred = Design(X, extra, center=True)
    np.testing.assert_allclose(centred.means, np.asarray(stacked.mean(axis=0)).ravel(), rtol=1e-14)


def test_dense_synthetic_targets_take_the_dense_pass_with_the_same_bits(synthetic_links):
    X, Z, mask = synthetic_links
    assert positive_entries(Z) is None
    labels = (np.asarray(X[:, :24].todense()) > 0).astype(np.float64)
    assert np.array_equal(positive_entries(labels), np.flatnonzero(labels))
    scores = Design(X, Z, center=True).forward(np.random.RandomState(0).normal(size=(X.shape[1] + Z.shape[1] + 1, 24)))
    dense, indexed = loss_and_residual(scores, Z, None), loss_and_residual(scores, Z, np.flatnonzero(Z))
    assert np.array_equal(dense[0], indexed[0]) and np.array_equal(dense[1], indexed[1])
    assert np.isfinite(dense[0]).all() and (dense[0] > 0).all()


def test_centred_coordinates_reach_the_same_optimum(synthetic_links):
    X, Z, mask = synthetic_links
    plain = fit_batched_logistic(X, Z, extra=Z, extra_mask=mask, **TIGHT)
    centred = fit_batched_logistic(X, Z, extra=Z, extra_mask=mask, center=True, **TIGHT)
    assert plain.converged.all() and centred.converged.all()
    np.testing.assert_allclose(objectives(X, Z, centred), objectives(X, Z, plain), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(centred.coef, plain.coef, atol=2e-3)
    np.testing.assert_allclose(centred.intercept, plain.intercept, atol=2e-3)
    assert not centred.coef[X.shape[1] :][~mask].any()


def test_centred_fit_ends_closer_to_the_optimum_in_fewer_iterations(synthetic_links):
    X, Z, mask = synthetic_links
    optimum = objectives(X, Z, fit_batched_logistic(X, Z, extra=Z, extra_mask=mask, center=True, **TIGHT))
    plain = fit_batched_logistic(X, Z, extra=Z, extra_mask=mask)
    centred = fit_batched_logistic(X, Z, extra=Z, extra_mask=mask, center=True)
    assert centred.converged.all()
    assert centred.n_iter.sum() < 0.8 * plain.n_iter.sum()
    plain_gap, centred_gap = objectives(X, Z, plain) - optimum, objectives(X, Z, centred) - optimum
    assert (centred_gap >= -1e-12).all()
    assert centred_gap.sum() <= plain_gap.sum()


def test_ccasl_predicts_as_its_tightly_converged_fit(mirror_dir):
    data = load_dataset(mirror_dir / "Medical.arff")
    Y = data.Y[:, data.Y[:600].sum(axis=0) >= 5]
    usual = CCASL(random_state=0).fit(data.X[:600], Y[:600])
    tight = CCASL(LogisticRegression(**TIGHT), random_state=0).fit(data.X[:600], Y[:600])
    assert np.mean(usual.predict(data.X[600:]) == tight.predict(data.X[600:])) >= 0.999


def reference_network(X, Y, n_hidden, learning_rate, n_epochs, momentum, rng):
    """Full-batch gradient descent with momentum in double precision, written plainly."""
    bound1, bound2 = np.sqrt(2.0 / (X.shape[1] + n_hidden)), np.sqrt(2.0 / (n_hidden + Y.shape[1]))
    params = [rng.uniform(-bound1, bound1, (X.shape[1], n_hidden)), np.zeros(n_hidden)]
    params[2:] = [rng.uniform(-bound2, bound2, (n_hidden, Y.shape[1])), np.zeros(Y.shape[1])]
    velocity = [np.zeros_like(p) for p in params]
    for _ in range(n_epochs):
        W1, b1, W2, b2 = params
        H = expit(X @ W1 + b1)
        delta_out = (expit(H @ W2 + b2) - Y) / X.shape[0]
        delta_hidden = delta_out @ W2.T * H * (1 - H)
        for p, v, g in zip(
            params, velocity, (X.T @ delta_hidden, delta_hidden.sum(0), H.T @ delta_out, delta_out.sum(0))
        ):
            v *= momentum
            v -= learning_rate * g
            p += v
    return params


def test_single_precision_network_follows_the_double_precision_updates(mirror_dir):
    data = load_dataset(mirror_dir / "Music.arff")
    X = (data.X[:300] - data.X[:300].mean(axis=0)) / data.X[:300].std(axis=0)
    net = train_network(X, data.Y[:300], 16, 0.1, 200, 0.9, np.random.RandomState(0))
    reference = reference_network(X, data.Y[:300], 16, 0.1, 200, 0.9, np.random.RandomState(0))
    for ours, theirs in zip((net.W1, net.b1, net.W2, net.b2), reference):
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("compiled", [True, False])
def test_sigmoid_is_expit_in_single_precision_and_silent_where_exp_overflows(compiled, monkeypatch):
    from mlhidden.methods import epoch_passes

    if not compiled:
        monkeypatch.setattr(epoch_passes, "_loops", dict)  # numpy's passes, as without numba
    A = np.array([[-1e4, -100.0, -88.8, -20.0, -1.0, 0.0, 1e-3, 1.0, 20.0, 100.0, 1e4]], dtype=np.float32)
    bias = np.full(A.shape[1], 0.5, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = sigmoid_of_sum(A.copy(), bias)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, expit(A + bias), rtol=1e-6, atol=1e-37)
    assert ours[0, 0] == 0.0 and ours[0, -1] == 1.0


@pytest.mark.parametrize(("name", "n_labels"), [("Enron", None), ("Scene", None), ("Scene", 1)])
def test_the_compiled_passes_of_an_epoch_train_numpys_network_bit_for_bit(name, n_labels, monkeypatch):
    """Each compiled elementwise pass of an epoch does numpy's single-precision operations in numpy's order, and
    sums the columns as numpy's ``sum(axis=0)`` does (row after row; one column pairwise)."""
    from mlhidden.methods import epoch_passes

    pytest.importorskip("numba", reason="the passes compile with numba (the fast extra)")
    data = load_dataset(name)
    X, Y = data.X[:400], data.Y[:400, :n_labels]
    ours = train_network(X, Y, 24, 0.1, 40, 0.9, np.random.RandomState(5))
    monkeypatch.setattr(epoch_passes, "_loops", dict)
    theirs = train_network(X, Y, 24, 0.1, 40, 0.9, np.random.RandomState(5))
    for mine, numpys in zip((ours.W1, ours.b1, ours.W2, ours.b2), (theirs.W1, theirs.b1, theirs.W2, theirs.b2)):
        np.testing.assert_array_equal(mine.view(np.uint8), numpys.view(np.uint8))


@pytest.mark.parametrize("compiled", [True, False])
def test_the_update_and_slope_take_padded_rows_whole_with_numpys_bits(compiled, monkeypatch):
    """W1 and the hidden residual keep rows padded to cache lines, which the momentum step and the slope pass take
    as one C-ordered array: they change only the columns of the operands beside it, with numpy's roundings and sums.
    The padding, NaN here, stays as it was."""
    from mlhidden.methods import epoch_passes
    from mlhidden.methods.epoch_passes import momentum_step, times_sigmoid_slope, whole_rows
    from mlhidden.methods.sparse_products import with_padded_rows

    if compiled:
        pytest.importorskip("numba", reason="the passes compile with numba (the fast extra)")
    else:
        monkeypatch.setattr(epoch_passes, "_loops", dict)

    def padded_with_nan(A):
        rows = whole_rows(with_padded_rows(A))
        rows[:, A.shape[1]:] = np.nan
        return rows

    rng = np.random.RandomState(4)
    rate, momentum = np.float32(0.1), np.float32(0.9)
    for shape in ((37, 100), (5, 3), (100,)):
        param, step, grad = (rng.normal(size=shape).astype(np.float32) for _ in range(3))
        ours = padded_with_nan(param) if len(shape) == 2 else param.copy()
        step_ours = step.copy()
        momentum_step(ours, step_ours, grad.copy(), momentum, rate)
        step *= momentum
        grad *= rate
        step -= grad
        param += step
        np.testing.assert_array_equal(ours[..., : shape[-1]].view(np.uint32), param.view(np.uint32))
        np.testing.assert_array_equal(step_ours.view(np.uint32), step.view(np.uint32))
        assert np.isnan(ours[..., shape[-1]:]).all()
    D, H = rng.normal(size=(50, 100)).astype(np.float32), rng.uniform(size=(50, 100)).astype(np.float32)
    rows = padded_with_nan(D)
    ours, our_sums = times_sigmoid_slope(rows, H)
    numpys = D * ((np.float32(1) - H) * H)
    assert ours.shape == D.shape
    np.testing.assert_array_equal(ours.view(np.uint32), numpys.view(np.uint32))
    np.testing.assert_array_equal(our_sums.view(np.uint32), numpys.sum(axis=0).view(np.uint32))
    assert np.isnan(rows[:, D.shape[1]:]).all()


@pytest.mark.parametrize("name", ["Enron", "Medical"])
def test_the_network_trained_on_its_layout_is_scipys_on_the_csc_view_and_on_a_csr_copy_bit_for_bit(name, monkeypatch):
    """MLP's layout (a CSR copy of the transpose when the products are compiled) trains the network that scipy's
    products train on the transpose read as CSC, and on a CSR copy of it."""
    from mlhidden.methods import mlp, sparse_products

    data = load_dataset(name)
    X, Y = data.X[:500], data.Y[:500]
    ours = train_network(X, Y, 32, 0.1, 30, 0.9, np.random.RandomState(3))
    monkeypatch.setattr(sparse_products, "_kernels", dict)  # scipy's products, as without numba
    for transpose in (lambda X: X.T, lambda X: X.T.tocsr()):
        single = X.astype(np.float32).tocsr()
        monkeypatch.setattr(mlp, "product_layout", lambda X, t=transpose, single=single: (single, t(single)))
        theirs = train_network(X, Y, 32, 0.1, 30, 0.9, np.random.RandomState(3))
        for mine, scipys in zip((ours.W1, ours.b1, ours.W2, ours.b2), (theirs.W1, theirs.b1, theirs.W2, theirs.b2)):
            assert np.array_equal(mine, scipys)


PINNED_KERNEL = ("SkylakeX", "2.4")
"""The OpenBLAS kernel and numpy version (whose ``exp`` loop is part of the result) the pinned outputs were made on."""
PINNED_PROBABILITIES = {
    "Bibtex": "3012d40be70a62e5bfc32cdfc971d1643375da2bab3e0ef33e21ad561d812b1e",
    "Corel5k": "f53548d4d470ac2dff290b4f1a87aa92b9856f4b00c0cc77e122d7581837a6a7",
    "Enron": "956daef085b4790a51f2424fffa42e21e9708a95195eb53f959e7461a8343ccf",
    "Medical": "c0ef906411fa3bf6e5f20d9e7e1be6abd9490ed9dbc05174d338778f28f3990e",
    "OHSUMED": "7aae88120e30cfe7e28fa620dd290ec3c8cab314eddd78d378567b2b54e66a23",
    "Scene": "8718fd1a9514f4541d2a99672fb4acd0347af666c9efc6d5dedaa9b3302ee5cb",
}
"""sha256 of MLP's ``predict_proba`` (30 epochs, seed 0, trained on rows :700, rows 700:1000), made on main before
issue #55 changed the epoch's kernels: the sparse ones, dense X (Scene), hidden sizes 46, 90 and 100."""


@pytest.mark.parametrize("name", sorted(PINNED_PROBABILITIES))
def test_mlp_predicts_the_probabilities_it_predicted_before_its_kernels_were_blocked_bit_for_bit(name):
    if (blas_kernel()["kernel"], ".".join(np.__version__.split(".")[:2])) != PINNED_KERNEL:
        pytest.skip(f"pinned on OpenBLAS's {PINNED_KERNEL[0]} kernels and numpy {PINNED_KERNEL[1]}")
    data = load_dataset(name)
    model = MLP(n_epochs=30, random_state=0).fit(data.X[:700], data.Y[:700])
    probabilities = model.predict_proba(data.X[700:1000])
    assert probabilities.dtype == np.float64
    assert hashlib.sha256(probabilities.tobytes()).hexdigest() == PINNED_PROBABILITIES[name]
