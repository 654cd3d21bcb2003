DROP TABLE customers;
DROP TABLE api_keys;
DROP TABLE accounts;
