-- 0017: a generation counter for the vector channel's in-memory bookkeeping (dead rows, chunks
-- without a vector). Every write that can change those books moves it, whatever path made the
-- write; writes that cannot (diagnostics, settings, tasks) leave it alone, so a library at rest
-- keeps its books in memory across queries instead of recounting 100,000 chunks per query.
CREATE TABLE vector_books_generation (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT INTO vector_books_generation (id, generation) VALUES (1, 0);

CREATE TRIGGER vector_books_chunk_added AFTER INSERT ON chunks BEGIN
    UPDATE vector_books_generation SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_books_chunk_removed AFTER DELETE ON chunks BEGIN
    UPDATE vector_books_generation SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_books_chunk_changed AFTER UPDATE OF enabled, role, library_id ON chunks
    WHEN old.enabled IS NOT new.enabled OR old.role IS NOT new.role
        OR old.library_id IS NOT new.library_id
BEGIN
    UPDATE vector_books_generation SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_books_row_added AFTER INSERT ON vector_rows BEGIN
    UPDATE vector_books_generation SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_books_row_changed AFTER UPDATE OF alive ON vector_rows
    WHEN old.alive IS NOT new.alive
BEGIN
    UPDATE vector_books_generation SET generation = generation + 1 WHERE id = 1;
END;
CREATE TRIGGER vector_books_row_removed AFTER DELETE ON vector_rows BEGIN
    UPDATE vector_books_generation SET generation = generation + 1 WHERE id = 1;
END;
