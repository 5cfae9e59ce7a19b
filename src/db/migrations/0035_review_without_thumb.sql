-- A review completed without a thumb is an annotation without one: null, neither up nor down
-- (a default of "up" showed a thumbs-up on every review, even one scored worst). Annotations
-- made through the annotations API still always carry one.
ALTER TABLE annotations ALTER COLUMN is_thumbs_up DROP NOT NULL;
