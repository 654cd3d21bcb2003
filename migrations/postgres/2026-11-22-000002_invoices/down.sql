DROP TABLE events;
DROP TABLE line_items;
DROP TABLE invoices;
DROP TABLE document_counters;
