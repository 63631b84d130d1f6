-- A results store as the pre-release mlhidden 0.0 wrote it (schema version 0): no n_warnings,
-- params_json or label columns, no datasets table. mlhidden 0.1 must refuse it, unchanged.
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '0');
INSERT INTO meta VALUES ('config', '{"name": "smoke", "splits": 1, "seed": 0}');
CREATE TABLE units (
    dataset TEXT NOT NULL, method TEXT NOT NULL, split INTEGER NOT NULL, seed INTEGER NOT NULL,
    status TEXT NOT NULL, exact_match REAL, hamming_score REAL, train_seconds REAL, test_seconds REAL,
    PRIMARY KEY (dataset, method, split, seed)
);
INSERT INTO units VALUES ('Logical', 'BR', 0, 1234, 'ok', 0.5, 0.83, 0.01, 0.001);
INSERT INTO units VALUES ('Logical', 'CC', 0, 1234, 'ok', 1.0, 1.0, 0.01, 0.001);
