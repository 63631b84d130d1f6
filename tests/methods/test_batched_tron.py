"""The batched TRON against scikit-learn's liblinear, on the real datasets and CCASL's real chain."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from mlhidden.data import load_dataset
from mlhidden.methods import BR, CC, CCASL
from mlhidden.methods.hidden_units import ThresholdUnits
from mlhidden.methods.solvers.batched_tron import fit_batched_liblinear
from mlhidden.methods.solvers.logistic_models import fit_logistic_models

LIBLINEAR = {"name": "logistic", "params": {"solver": "liblinear"}}


@pytest.fixture(scope="module")
def medical_chain(mirror_dir):
    """Medical (sparse text), 600 training rows, and CCASL's chain targets [z, y] over its 20 most frequent labels."""
    data = load_dataset(mirror_dir / "Medical.arff")
    X, Y = data.X[:600], data.Y[:600][:, np.argsort(-data.Y[:600].sum(axis=0))[:20]]
    Z = ThresholdUnits(n_units=Y.shape[1], cascade=True, random_state=0).fit_transform(X)
    return X, np.hstack([Z, Y]).astype(float), data.X[600:]


def liblinear(C=1.0, **params):
    return LogisticRegression(solver="liblinear", C=C, **params)


def objective(A, y, coef, intercept, C):
    """liblinear's objective: (||w||^2 + b^2) / 2 + C * summed log-loss."""
    z = np.asarray(A @ coef).ravel() + intercept
    return 0.5 * (coef @ coef + intercept**2) + C * np.sum(np.logaddexp(0, z) - y * z)


def gradient_norm(A, y, coef, intercept, C):
    residual = C * (expit(np.asarray(A @ coef).ravel() + intercept) - y)
    return np.linalg.norm(np.append(coef + np.asarray(A.T @ residual).ravel(), intercept + residual.sum()))


def stop_norm(A, y, C, tol=1e-4):
    """liblinear's stopping test: the gradient norm at most this."""
    positives = y.sum()
    return tol * max(min(positives, y.size - positives), 1) / y.size * gradient_norm(A, y, np.zeros(A.shape[1]), 0.0, C)


def assert_liblinears_fit(inputs, y, coef, intercept, reference, C):
    """``coef``, ``intercept`` fit ``y`` as closely as liblinear's ``reference``, within what its stopping test allows.

    The objective is 1-strongly convex (its Hessian is I + C A'DA), so a point whose gradient has norm g lies
    within g of the optimum, and its objective within g^2 / 2 of the least. Two points that both pass the
    stopping test are then within the sum of their gradient norms of each other, whatever order the
    floating-point sums took. Iteration counts are not compared: where rounding differs (another BLAS
    kernel, another CPU) the same method can stop one Newton step earlier or later.
    """
    theirs_coef, theirs_intercept = reference.coef_[0], reference.intercept_[0]
    ours_g = gradient_norm(inputs, y, coef, intercept, C)
    theirs_g = gradient_norm(inputs, y, theirs_coef, theirs_intercept, C)
    assert reference.n_iter_[0] < reference.max_iter, "liblinear converged"
    assert ours_g <= stop_norm(inputs, y, C)
    distance = np.linalg.norm(np.append(coef - theirs_coef, intercept - theirs_intercept))
    assert distance <= ours_g + theirs_g
    ours, theirs = objective(inputs, y, coef, intercept, C), objective(inputs, y, theirs_coef, theirs_intercept, C)
    assert abs(ours - theirs) <= max(ours_g, theirs_g) ** 2 / 2 + 1e-12 * abs(theirs)


@pytest.mark.parametrize("C", [1.0, 10.0])
def test_each_chain_link_reaches_liblinears_fit(medical_chain, C):
    """The same algorithm from the same start with the same stopping test: each link's fit and predictions
    are liblinear's, within that test's tolerance."""
    X, T, X_test = medical_chain
    assert sp.issparse(X)
    links = np.arange(T.shape[1])
    fit = fit_batched_liblinear(X, T, extra=T, extra_mask=links[:, None] < links[None, :], C=C)
    assert fit.converged.all()
    for j in links:
        inputs = sp.hstack([X, sp.csr_matrix(T[:, :j])], format="csr")
        reference = liblinear(C).fit(inputs, T[:, j])
        coef = fit.coef[: inputs.shape[1], j]
        assert np.all(fit.coef[inputs.shape[1]:, j] == 0), "a link sees only the labels before it"
        assert_liblinears_fit(inputs, T[:, j], coef, fit.intercept[j], reference, C)
        test_inputs = sp.hstack([X_test, sp.csr_matrix((X_test.shape[0], j))], format="csr")
        assert ((test_inputs @ coef + fit.intercept[j] > 0) == reference.predict(test_inputs)).mean() >= 0.999


def test_dense_inputs_and_the_iteration_cap_behave_as_liblinear(mirror_dir):
    data = load_dataset(mirror_dir / "Music.arff")
    X, Y = data.X[:400], data.Y[:400].astype(float)
    fit = fit_batched_liblinear(X, Y)
    capped = fit_batched_liblinear(X, Y, max_iter=2)
    assert fit.converged.all()
    for j in range(Y.shape[1]):
        reference = liblinear().fit(X, Y[:, j])
        assert_liblinears_fit(X, Y[:, j], fit.coef[:, j], fit.intercept[j], reference, 1.0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            two = liblinear(max_iter=2).fit(X, Y[:, j])
        assert capped.n_iter[j] == 2 and two.n_iter_[0] == 2
        assert not capped.converged[j] and any(issubclass(w.category, ConvergenceWarning) for w in caught)
        np.testing.assert_allclose(capped.coef[:, j], two.coef_[0], atol=1e-6)


def test_unconverged_liblinear_targets_warn(medical_chain):
    X, T, _ = medical_chain
    with pytest.warns(ConvergenceWarning, match=r"liblinear failed to converge for 40 of 40 targets \(max_iter=1\)"):
        fit_logistic_models(
            {"name": "logistic", "params": {"solver": "liblinear", "max_iter": 1}}, X, T, seeds=np.arange(T.shape[1])
        )


def test_methods_on_liblinear_predict_as_one_liblinear_fit_per_label(medical_chain):
    X, T, X_test = medical_chain
    Y = T[:, 20:].astype(np.int8)
    br = BR(LIBLINEAR, random_state=0).fit(X, Y)
    assert all(type(m) is LogisticRegression and m.solver == "liblinear" for m in br.estimators_)
    one_by_one = np.column_stack([liblinear().fit(X, Y[:, j]).predict(X_test) for j in range(Y.shape[1])])
    assert (br.predict(X_test) == one_by_one).mean() >= 0.999
    cc = CC(LIBLINEAR, random_state=0).fit(X, Y)
    assert [m.n_features_in_ for m in cc.estimators_] == [X.shape[1] + j for j in range(Y.shape[1])]
    ccasl = CCASL(LIBLINEAR, random_state=0).fit(X, Y)
    assert ccasl.predict(X_test).shape == (X_test.shape[0], Y.shape[1])


def gathering_trust_region_cg(objective, cols, delta, G, curvature):
    """LIBLINEAR's ``trcg`` as batched_tron first ran it: a copy of the running targets' columns at every step."""
    S, R = np.zeros_like(G), -G
    D = R.copy()
    cg_tol = 0.1 * np.sqrt(np.einsum("pa,pa->a", G, G))
    rTr = np.einsum("pa,pa->a", R, R)
    running = np.sqrt(rTr) > cg_tol
    while running.any():
        k = np.flatnonzero(running)
        d = D[:, k]
        Hd = objective.hessian_product(d, cols[k], curvature[:, k])
        alpha = rTr[k] / np.einsum("pa,pa->a", d, Hd)
        step = S[:, k] + alpha * d
        outside = np.sqrt(np.einsum("pa,pa->a", step, step)) > delta[k]
        if outside.any():
            o = k[outside]
            s, do, Hdo = S[:, o], d[:, outside], Hd[:, outside]
            std, sts, dtd = (np.einsum("pa,pa->a", a, b) for a, b in ((s, do), (s, s), (do, do)))
            rad = np.sqrt(std * std + dtd * (delta[o] ** 2 - sts))
            tau = np.where(std >= 0, (delta[o] ** 2 - sts) / np.where(std >= 0, std + rad, 1.0), (rad - std) / dtd)
            S[:, o] = s + tau * do
            R[:, o] -= tau * Hdo
            running[o] = False
        inside = ~outside
        i = k[inside]
        S[:, i] = step[:, inside]
        R[:, i] -= alpha[inside] * Hd[:, inside]
        rnew = np.einsum("pa,pa->a", R[:, i], R[:, i])
        D[:, i] = R[:, i] + (rnew / rTr[i]) * d[:, inside]
        rTr[i] = rnew
        running[i] = np.sqrt(rnew) > cg_tol[i]
    return S, R


@pytest.mark.parametrize("chain", [False, True])
def test_taking_the_running_targets_as_views_fits_what_copying_them_fits_bit_for_bit(medical_chain, chain, monkeypatch):
    """The conjugate gradients take every target's columns as views while all iterate; the sums over a column
    depend on the arrays' layout, so the views must keep the layout of the copies: the same weights, bit for bit."""
    from mlhidden.methods.solvers import batched_tron

    X, targets, _ = medical_chain
    extra = targets if chain else None
    extra_mask = np.arange(targets.shape[1])[:, None] < np.arange(targets.shape[1]) if chain else None
    ours = fit_batched_liblinear(X, targets, extra=extra, extra_mask=extra_mask)
    monkeypatch.setattr(batched_tron, "_trust_region_cg", gathering_trust_region_cg)
    theirs = fit_batched_liblinear(X, targets, extra=extra, extra_mask=extra_mask)
    assert np.array_equal(ours.n_iter, theirs.n_iter) and np.all(ours.n_iter > 1)
    np.testing.assert_array_equal(ours.coef.view(np.uint8), theirs.coef.view(np.uint8))
    np.testing.assert_array_equal(ours.intercept.view(np.uint8), theirs.intercept.view(np.uint8))
