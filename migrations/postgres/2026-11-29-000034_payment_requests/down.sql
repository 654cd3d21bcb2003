DROP TABLE payment_requests;
