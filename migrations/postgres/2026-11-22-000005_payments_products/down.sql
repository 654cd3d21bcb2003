DROP TABLE payments;
DROP INDEX line_items_by_product;
ALTER TABLE line_items DROP CONSTRAINT line_items_product;
ALTER TABLE line_items DROP COLUMN product_id;
DROP TABLE products;
