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

Neither change is adopted: see benchmarks/results.md (issue #31 step 5, continued, and session 15).
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
from mlhidden.methods.solvers.design import Design, loss_and_residual, positive_entries

TOL = 1e-4
TRIALS = ("memory", "whitening", "scikit-learn")
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


if __name__ == "__main__":
    main()
