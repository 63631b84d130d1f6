"""Two solver changes for CCASL's chain at L = 1000 that keep LogisticRegression's optimum, measured, and
the batched solver's iterations against scikit-learn's.

``python -m benchmarks.ccasl_solver_trials [--samples 4000] [--trials memory,whitening,scikit-learn]`` on the
Delicious-shaped set (:func:`benchmarks.generated.make_delicious_like`; 4000 rows is the quarter set, 60 % to
train):

- **L-BFGS memory**: CCASL fitted and predicted with the batched solver's memory at 10 (scikit-learn's)
  and 30, CPU seconds against CC's and the share of test entries as at 10;
- **whitened synthetic columns**: 256 real links on [X, Z] (Z: CCASL's 1000 synthetic labels) fitted
  as CCASL fits them, and in the coordinates v = R w of Z's centred QR factor (Z - 1 m^T = Q R, Q
  scaled to unit mean square), which make the synthetic block's Gram matrix the identity; the
  penalty becomes |R^-1 v|^2 (two triangular solves an evaluation). Iterations, CPU seconds, and
  the largest weight difference between the two optima.
- **scikit-learn's iterations**: 25 synthetic and 25 real links of CCASL's chain, and 25 of CC's, each
  fitted alone by ``LogisticRegression()`` (scipy's L-BFGS-B) on the inputs the chain gives it, against the
  iterations the batched fit took; and the L-BFGS iterations of all links, CCASL's chain over CC's.
- **Newton's method**: 256 synthetic links (512 to 767) fitted by trust-region Newton with conjugate
  gradients (LIBLINEAR's steps, :func:`~mlhidden.methods.solvers.batched_tron._trust_region_cg`) on the
  lbfgs objective, to the same gradient test, with the Hessian on all training rows and on a random
  10 % or 25 % of them (the gradient always on all): outer iterations, conjugate-gradient steps and
  products per link against L-BFGS's two per iteration, CPU seconds, and the largest weight difference.

No change is adopted: see benchmarks/results.md (issue #31 step 5, continued, and session 15).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import scipy.linalg as sl
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from benchmarks.generated import make_delicious_like
from benchmarks.hidden_layers import link_iterations
from mlhidden.methods.registry import make_method
from mlhidden.methods.solvers import batched_logistic
from mlhidden.methods.solvers.batched_tron import _trust_region_cg
from mlhidden.methods.solvers.design import Design, loss_and_residual, positive_entries

TOL = 1e-4
TRIALS = ("memory", "whitening", "scikit-learn", "newton")
HESSIAN_SHARES = (1.0, 0.25, 0.1)
SAMPLED_LINKS = 25


class _WhitenedBatch(batched_logistic._Batch):
    """The batch with the synthetic block's weights in whitened coordinates (``R``, rows ``block``)."""

    def __init__(self, R, block, *args):
        self.R, self.block = R, block
        super().__init__(*args)

    def evaluate(self, Z, theta, columns=None):
        Y = self.Y if columns is None else np.take(self.Y, columns, axis=1)
        lam, n_rows = (self.lam, self.n_rows) if columns is None else (self.lam[columns], self.n_rows[columns])
        loss, residual = loss_and_residual(Z, Y, positive_entries(Y))
        plain = self.penalty * theta
        plain[self.block] = sl.solve_triangular(self.R, theta[self.block])
        quadratic = np.einsum("pa,pa->a", np.delete(plain, self.block, 0), np.delete(theta, self.block, 0))
        quadratic += np.einsum("pa,pa->a", plain[self.block], plain[self.block])
        return loss / n_rows + 0.5 * lam * quadratic, residual

    def gradient(self, residual, theta):
        penalty = self.penalty * theta
        penalty[self.block] = sl.solve_triangular(self.R, sl.solve_triangular(self.R, theta[self.block]), trans="T")
        return self.design.backward(residual) / self.n_rows + self.lam * penalty


def fit_whitened(X, Z, T):
    """The real links T on [X, Z] with Z whitened; (weights in the original coordinates, iterations)."""
    means = Z.mean(axis=0)
    Q, R = np.linalg.qr(Z - means)
    scale = np.sqrt(len(Z))
    Q, R = Q * scale, R / scale
    design = Design(X, Q, center=True)
    block = np.arange(X.shape[1], X.shape[1] + Z.shape[1])
    n_params = design.n_inputs + 1
    penalty = np.ones((n_params, 1))
    penalty[-1] = 0.0
    Theta = np.zeros((n_params, T.shape[1]))
    prior = np.clip(T.mean(axis=0), 1e-3, 1 - 1e-3)
    Theta[-1] = np.log(prior / (1 - prior))
    batch = _WhitenedBatch(R, block, design, Theta, np.ascontiguousarray(T), None, penalty, 1.0, None)

    def to_original(gradient):
        gradient = design.original_gradient(gradient).copy()
        gradient[block] = R.T @ gradient[block]
        return gradient

    n_iter, _ = batched_logistic.run_batch(batch, TOL, 100, to_original)
    design.original_weights(Theta)
    Theta[block] = sl.solve_triangular(R, Theta[block])
    Theta[-1] -= means @ Theta[block]
    return Theta, n_iter


def memory_trial(X, Y, train, test) -> None:
    """CCASL at L-BFGS memory 10 and 30, alternating, against CC."""

    def fit_predict(name):
        started = time.process_time()
        predicted = make_method(name, random_state=0).fit(X[train], Y[train]).predict(X[test])
        return time.process_time() - started, np.asarray(predicted)

    cc, _ = fit_predict("CC")
    reference = None
    for memory in (10, 30, 10, 30):
        batched_logistic.MEMORY = memory
        seconds, predicted = fit_predict("CCASL")
        reference = predicted if reference is None else reference
        print(
            f"memory {memory}: CCASL {seconds:.2f} CPU s, {seconds / cc:.2f}x CC ({cc:.2f} s), "
            f"test entries as at 10: {np.mean(predicted == reference):.4%}",
            flush=True,
        )
    batched_logistic.MEMORY = 10


def whitening_trial(X, Y, train) -> None:
    """256 real links on [X, Z] as fitted and with Z whitened, twice."""
    Xt, Yt = X[train], Y[train].astype(float)
    Z = make_method("CCASL", random_state=0)._synthetic_labels(Xt, Yt.shape[1], np.random.RandomState(0))
    Z = np.asarray(Z, dtype=float)
    both = (Yt.sum(axis=0) > 0) & (Yt.sum(axis=0) < len(Yt))
    T = Yt[:, both][:, :256]
    for _ in range(2):
        started = time.process_time()
        plain = batched_logistic.fit_batched_logistic(Xt, T, extra=Z, center=True)
        plain_seconds = time.process_time() - started
        started = time.process_time()
        whitened, n_iter = fit_whitened(Xt, Z, T)
        whitened_seconds = time.process_time() - started
        weights = np.vstack([plain.coef, plain.intercept])
        gap = np.abs(whitened - weights).max()
        print(
            f"256 real links: as fitted {plain_seconds:.2f} CPU s, {plain.n_iter.mean():.1f} iterations "
            f"(max {plain.n_iter.max()}); whitened {whitened_seconds:.2f} s, {n_iter.mean():.1f} "
            f"(max {n_iter.max()}); largest weight difference {gap:.3g} (largest weight {np.abs(weights).max():.3g})",
            flush=True,
        )


def scikit_learn_trial(X, Y, train) -> None:
    """Sampled links of CCASL's chain and of CC refitted one at a time by ``LogisticRegression()``."""
    Xt, Yt = X[train], Y[train]
    ccasl = make_method("CCASL", random_state=0).fit(Xt, Yt)
    cc = make_method("CC", random_state=0).fit(Xt, Yt)
    K = ccasl.n_synthetic_
    ccasl_targets = np.hstack([np.asarray(ccasl.units_.transform(Xt), dtype=float), Yt])
    rng = np.random.RandomState(1)
    groups = {
        "CCASL synthetic": (ccasl.chain_.estimators_, ccasl_targets, rng.choice(np.arange(1, K), SAMPLED_LINKS, False)),
        "CCASL real": (ccasl.chain_.estimators_, ccasl_targets, K + rng.choice(Yt.shape[1], SAMPLED_LINKS, False)),
        "CC": (cc.estimators_, Yt, rng.choice(np.arange(1, Yt.shape[1]), SAMPLED_LINKS, False)),
    }
    for group, (links, targets, sampled) in groups.items():
        ours, theirs, gaps = [], [], []
        for j in sampled:
            if not hasattr(links[j], "n_iter_"):  # a constant link
                continue
            inputs = sp.hstack([sp.csr_matrix(Xt), sp.csr_matrix(targets[:, :j].astype(float))], format="csr")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                alone = LogisticRegression().fit(inputs, targets[:, j])
            ours.append(int(links[j].n_iter_[0]))
            theirs.append(int(alone.n_iter_[0]))
            gaps.append(np.abs(alone.coef_ - links[j].coef_).max())
        print(
            f"{group} links ({len(ours)}): batched {np.mean(ours):.1f} iterations, scikit-learn alone "
            f"{np.mean(theirs):.1f}; weights differ by {np.median(gaps):.3g} (median), {max(gaps):.3g} (largest)",
            flush=True,
        )
    totals = {"CCASL": link_iterations(ccasl.chain_.estimators_), "CC": link_iterations(cc.estimators_)}
    print(
        f"L-BFGS iterations of all links: CCASL {totals['CCASL']}, CC {totals['CC']}, "
        f"{totals['CCASL'] / totals['CC']:.2f}x",
        flush=True,
    )


class _MeanLoss:
    """The lbfgs objective (mean log-loss, penalty ``lam / 2 |w|^2`` without the intercept) of targets T on a
    centred design, with Hessian products on the rows ``rows`` of it (all when None); ``steps`` counts each
    target's Hessian products (conjugate-gradient steps)."""

    def __init__(self, X, extra, T, mask, rows=None):
        self.design, self.T, self.mask, self.lam = Design(X, extra, center=True), T, mask, 1.0 / X.shape[0]
        self.rows = rows
        self.hessian_design = self.design
        if rows is not None:  # the same centred map on fewer rows: the full design's column means
            self.hessian_design = Design(X[rows], extra[rows], center=True)
            self.hessian_design.means = self.design.means
        self.penalty = np.ones((mask.shape[0], 1))
        self.penalty[-1] = 0.0
        self.steps = np.zeros(T.shape[1], dtype=int)

    def evaluate(self, W, cols):
        """Objective, gradient and loss curvature p (1 - p) (on the Hessian's rows) of targets ``cols``."""
        T = self.T[:, cols]
        loss, residual = loss_and_residual(self.design.forward(W), T, positive_entries(T))
        gradient = (self.design.backward(residual) / len(T) + self.lam * self.penalty * W) * self.mask[:, cols]
        probability = residual + T
        curvature = probability * (1.0 - probability)
        objective = loss / len(T) + 0.5 * self.lam * np.einsum("pa,pa->a", self.penalty * W, W)
        return objective, gradient, curvature if self.rows is None else curvature[self.rows]

    def hessian_product(self, V, cols, curvature):
        self.steps[cols] += 1
        products = self.hessian_design.backward(curvature * self.hessian_design.forward(V)) / len(curvature)
        return (products + self.lam * self.penalty * V) * self.mask[:, cols]


def fit_newton(objective: _MeanLoss, W, max_iter=100):
    """Trust-region Newton from W until every gradient entry (original coordinates) is within TOL.

    Returns the weights (original coordinates) and the outer iterations per target.
    """
    n_targets = W.shape[1]
    result, outer = np.zeros_like(W), np.zeros(n_targets, dtype=int)
    live = np.arange(n_targets)
    f, G, curvature = objective.evaluate(W, live)
    delta = 100.0 * np.sqrt(np.einsum("pa,pa->a", G, G))
    for _ in range(max_iter):
        done = np.abs(objective.design.original_gradient(G)).max(axis=0) <= TOL
        result[:, live[done]] = W[:, done]
        keep = ~done
        live, W, f, G, curvature, delta = live[keep], W[:, keep], f[keep], G[:, keep], curvature[:, keep], delta[keep]
        if live.size == 0:
            break
        outer[live] += 1
        S, R = _trust_region_cg(objective, live, delta, G, curvature)
        f_new, G_new, curvature_new = objective.evaluate(W + S, live)
        slope = np.einsum("pa,pa->a", G, S)
        predicted, actual = -0.5 * (slope - np.einsum("pa,pa->a", S, R)), f - f_new
        ratio = np.where(predicted > 0, actual / np.where(predicted > 0, predicted, 1.0), 0.0)
        length = np.sqrt(np.einsum("pa,pa->a", S, S))
        delta = np.where(ratio < 0.25, 0.25 * length, np.where(ratio > 0.75, np.maximum(delta, 2.0 * length), delta))
        accepted = actual > 1e-4 * predicted
        W, f = np.where(accepted, W + S, W), np.where(accepted, f_new, f)
        G, curvature = np.where(accepted, G_new, G), np.where(accepted, curvature_new, curvature)
    result[:, live] = W
    objective.design.original_weights(result)
    return result, outer


def newton_trial(X, Y, train) -> None:
    """256 synthetic links fitted by L-BFGS and by trust-region Newton, its Hessian on all or some rows."""
    Xt = X[train]
    Z = make_method("CCASL", random_state=0)._synthetic_labels(Xt, Y.shape[1], np.random.RandomState(0))
    links = np.arange(512, 768)
    extra, T = np.asarray(Z[:, : links[-1]], dtype=float), np.ascontiguousarray(Z[:, links], dtype=float)
    extra_mask = np.arange(extra.shape[1])[:, None] < links
    started = time.process_time()
    lbfgs = batched_logistic.fit_batched_logistic(Xt, T, extra=extra, extra_mask=extra_mask, center=True)
    print(
        f"L-BFGS: {time.process_time() - started:.2f} CPU s, {lbfgs.n_iter.mean():.1f} iterations, "
        f"{2 * lbfgs.n_iter.mean():.1f} products per link",
        flush=True,
    )
    reference = np.vstack([lbfgs.coef, lbfgs.intercept])
    mask = np.ones((Xt.shape[1] + extra.shape[1] + 1, links.size))
    mask[Xt.shape[1] : -1] = extra_mask
    for share in HESSIAN_SHARES:
        rows = None if share == 1 else np.sort(np.random.RandomState(0).choice(len(T), int(share * len(T)), False))
        objective = _MeanLoss(Xt, extra, T, mask, rows)
        start = objective.design.design_weights(
            np.vstack([np.zeros_like(lbfgs.coef), np.log(T.mean(0) / (1 - T.mean(0)))])
        )
        started = time.process_time()
        weights, outer = fit_newton(objective, start)
        cg_steps = objective.steps
        products = 2 * outer.mean() + 2 * share * cg_steps.mean()
        print(
            f"Newton, Hessian on {share:.0%} of the rows: {time.process_time() - started:.2f} CPU s, "
            f"{outer.mean():.1f} iterations ({np.count_nonzero(outer >= 100)} at the cap), "
            f"{cg_steps.mean():.1f} conjugate-gradient steps, {products:.1f} products per link (in full-data "
            f"passes), largest weight difference to L-BFGS {np.abs(weights - reference).max():.3g}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4000)
    parser.add_argument("--trials", default=",".join(TRIALS), help=f"some of {', '.join(TRIALS)}")
    args = parser.parse_args(argv)
    data = make_delicious_like(n_samples=args.samples)
    order = np.random.RandomState(0).permutation(args.samples)
    train, test = order[: int(0.6 * args.samples)], order[int(0.6 * args.samples) :]
    X, Y = data.X, np.asarray(data.Y)
    trials = args.trials.split(",")
    if "memory" in trials:
        memory_trial(X, Y, train, test)
    if "whitening" in trials:
        whitening_trial(X, Y, train)
    if "scikit-learn" in trials:
        scikit_learn_trial(X, Y, train)
    if "newton" in trials:
        newton_trial(X, Y, train)


if __name__ == "__main__":
    main()
