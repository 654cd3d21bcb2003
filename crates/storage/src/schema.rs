//! Table definitions shared by both backends: only types both PostgreSQL and SQLite map the same
//! way (BIGINT, TEXT, BOOLEAN, TIMESTAMP holding UTC; JSON kept as TEXT).

diesel::table! {
    accounts (id) {
        id -> BigInt,
        name -> Text,
        default_currency -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    api_keys (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        key_hash -> Text,
        prefix -> Text,
        last4 -> Text,
        scopes -> Text,
        rate_per_minute -> Nullable<Integer>,
        burst -> Nullable<Integer>,
        expires_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    customers (id) {
        id -> BigInt,
        account_id -> BigInt,
        livemode -> Bool,
        name -> Text,
        email -> Text,
        email_normalized -> Text,
        phone -> Nullable<Text>,
        company -> Nullable<Text>,
        address -> Nullable<Text>,
        metadata -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::joinable!(api_keys -> accounts (account_id));
diesel::joinable!(customers -> accounts (account_id));
diesel::allow_tables_to_appear_in_same_query!(accounts, api_keys, customers);
