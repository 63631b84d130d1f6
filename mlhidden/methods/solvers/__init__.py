"""Many logistic regressions fitted as one batch, and the scikit-learn models made from the batch.

:mod:`.batched_logistic` solves the smooth solvers' problems (L-BFGS), :mod:`.batched_tron`
liblinear's (TRON) and :mod:`.batched_logistic_cv` ``LogisticRegressionCV``'s;
:mod:`.logistic_models` decides when a base learner's objective is one they solve and turns the
solution into per-label ``LogisticRegression`` models.
"""
