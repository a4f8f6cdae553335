//! Password guesses at one account are bounded whatever they come from.
//! Anyone with an account can mint known-browser marks (each sign-in gives
//! a browser one, with a budget of its own) and use many addresses; the
//! account's own budget still holds their guesses at another account to 8
//! per 10 minutes in all, while the account holder's own browser is never
//! held back by it. Over real HTTP on both databases, behind a trusted
//! proxy so that each attempt can come from an address of its own.

mod common;

use common::people::{join, PERSON_PASSWORD};
use common::PASSWORD;
use serde_json::json;

/// A sign-in to account `name` with `password`, from address `from`, in
/// `browser` (which keeps the mark it is given): the status.
async fn attempt(
    browser: &reqwest::Client,
    c: &common::Control,
    from: &str,
    name: &str,
    password: &str,
) -> u16 {
    browser
        .post(c.url("/api/v1/session"))
        .header("x-forwarded-for", from)
        .json(&json!({ "name": name, "password": password }))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

on_both_databases!(
    marks_minted_with_one_account_cannot_multiply_guesses_at_another,
    |backend| async move {
        let c = common::behind_proxy(backend).await;
        c.sign_in().await;
        // The holders of the accounts under attack signed in before, each
        // in a browser of their own.
        let owner = common::browser_like_client(&c.base);
        assert_eq!(attempt(&owner, &c, "198.51.100.1", "", PASSWORD).await, 200);
        join(&c, "operator", "anna").await;
        let anna = common::browser_like_client(&c.base);
        assert_eq!(
            attempt(&anna, &c, "198.51.100.2", "anna", PERSON_PASSWORD).await,
            200
        );
        // Mallory has an account, and mints a mark per browser, each from an
        // address of its own.
        join(&c, "viewer", "mallory").await;
        let mut marks = Vec::new();
        for i in 0..12 {
            let browser = common::browser_like_client(&c.base);
            let from = format!("203.0.113.{i}");
            let status = attempt(&browser, &c, &from, "mallory", PERSON_PASSWORD).await;
            assert_eq!(status, 200, "mallory signs in from {from}");
            marks.push((browser, from));
        }

        // Guesses at each account, one per mark and address, in the many
        // spellings of its name that all name it.
        for (account, spellings) in [
            ("", ["", " ", "  ", "\t"]),
            ("anna", ["anna", "Anna", " ANNA ", "anna\t"]),
        ] {
            let mut statuses = Vec::new();
            for (i, (browser, from)) in marks.iter().enumerate() {
                let name = spellings[i % spellings.len()];
                statuses.push(attempt(browser, &c, from, name, "wrong guess").await);
            }
            let checked = statuses.iter().filter(|s| **s == 401).count();
            assert_eq!(checked, 8, "{account:?}: {statuses:?}");
            assert!(
                statuses[8..].iter().all(|s| *s == 429),
                "{account:?}: {statuses:?}"
            );
            // The right password from yet another new browser and address
            // is not told apart from the guesser.
            let fresh = common::browser_like_client(&c.base);
            let right = if account.is_empty() {
                PASSWORD
            } else {
                PERSON_PASSWORD
            };
            assert_eq!(
                attempt(&fresh, &c, "192.0.2.77", account, right).await,
                429,
                "{account:?}"
            );
        }

        // The holders' own browsers are let in at once.
        assert_eq!(attempt(&owner, &c, "198.51.100.1", "", PASSWORD).await, 200);
        assert_eq!(
            attempt(&anna, &c, "198.51.100.2", "anna", PERSON_PASSWORD).await,
            200
        );
        // Mallory's own account was never the target: her marks still sign
        // her in.
        let (browser, from) = &marks[0];
        assert_eq!(
            attempt(browser, &c, from, "mallory", PERSON_PASSWORD).await,
            200
        );
        // A mark bound to another account is no key to this one: Mallory's
        // browser guessing at Anna counts against Anna's budget, spent.
        assert_eq!(attempt(browser, &c, from, "anna", "wrong").await, 429);
    }
);
