//! Property tests for paying invoices: the amount due is never negative, verified payments never
//! over-pay, and amounts typed on the payment page read back exactly.

use invoicing_domain::currency::Currency;
use invoicing_domain::money::{Money, MAX_AMOUNT};
use invoicing_domain::payment_amount::{
    amount_due_cents, InvoiceBalance, MajorAmount, PaymentAmountError,
};
use proptest::prelude::*;

fn total() -> impl Strategy<Value = i64> {
    prop_oneof![0..=MAX_AMOUNT, 0i64..=10_000, Just(0), Just(MAX_AMOUNT)]
}

fn payment() -> impl Strategy<Value = i64> {
    prop_oneof![-10i64..=10_000, 1..=MAX_AMOUNT, Just(MAX_AMOUNT)]
}

proptest! {
    #[test]
    fn amount_due_is_never_negative(total in any::<i64>(), paid in any::<i64>()) {
        let due = amount_due_cents(total, paid, 0);
        prop_assert!(due >= 0);
        let exact = i128::from(total) - i128::from(paid);
        if exact >= 0 && exact <= i128::from(i64::MAX) {
            prop_assert_eq!(i128::from(due), exact);
        } else if exact < 0 {
            prop_assert_eq!(due, 0);
        }
    }

    #[test]
    fn verified_payments_never_over_pay(total in total(), payments in prop::collection::vec(payment(), 0..40)) {
        let mut balance = InvoiceBalance::new(total, 0).unwrap();
        for amount in payments {
            let amount = Money::new(amount).unwrap();
            let before = balance;
            match balance.apply(amount) {
                Ok(after) => {
                    prop_assert!(amount > Money::ZERO && amount <= before.due());
                    prop_assert_eq!(after.paid().minor(), before.paid().minor() + amount.minor());
                    balance = after;
                }
                Err(PaymentAmountError::NotPositive) => prop_assert!(amount <= Money::ZERO),
                Err(PaymentAmountError::ExceedsDue { due }) => {
                    prop_assert_eq!(due, before.due());
                    prop_assert!(amount > due);
                }
                Err(PaymentAmountError::ExceedsUnreported { .. }) => {
                    prop_assert!(false, "a payment is never refused as a report");
                }
            }
            prop_assert!(balance.paid() <= balance.total());
            prop_assert!(balance.due() >= Money::ZERO);
            prop_assert_eq!(balance.paid().minor() + balance.due().minor(), total);
            prop_assert_eq!(balance.is_settled(), balance.due() == Money::ZERO);
        }
    }

    #[test]
    fn typed_amounts_read_back_exactly(minor in 1..=MAX_AMOUNT, index in 0usize..170) {
        let currencies: Vec<Currency> = Currency::all().collect();
        let currency = currencies[index % currencies.len()];
        let money = Money::new(minor).unwrap();
        let text = MajorAmount::format(money, currency);
        prop_assert_eq!(MajorAmount::parse(&text).and_then(|a| a.to_minor(currency)), Ok(money));
        let comma = text.replace('.', ",");
        prop_assert_eq!(MajorAmount::parse(&comma).and_then(|a| a.to_minor(currency)), Ok(money));
    }

    #[test]
    fn parsing_never_panics(text in ".{0,40}") {
        let eur = Currency::parse("EUR").unwrap();
        if let Ok(m) = MajorAmount::parse(&text).and_then(|a| a.to_minor(eur)) {
            prop_assert!(m > Money::ZERO);
        }
    }
}
