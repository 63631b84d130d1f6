-- A results store from before the schema was versioned: a meta table without schema_version.
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('config', '{"name": "smoke"}');
CREATE TABLE units (dataset TEXT, method TEXT, split INTEGER, exact_match REAL);
INSERT INTO units VALUES ('Logical', 'BR', 0, 0.5);
