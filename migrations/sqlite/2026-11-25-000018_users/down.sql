DROP TABLE login_failures;
DROP TABLE user_tokens;
DROP TABLE user_sessions;
DROP TABLE memberships;
DROP TABLE users;
