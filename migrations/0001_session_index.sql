-- placeholder, replaced below
CREATE TABLE IF NOT EXISTS placeholder (id INTEGER);
