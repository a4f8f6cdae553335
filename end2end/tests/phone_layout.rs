//! Every screen fits a phone: nothing scrolls sideways at 360 or 390 px, in
//! English or Russian, forms behind buttons included; the main navigation is
//! one row and still reachable from the keyboard; and the Russian screens use
//! the words of the KnotRoute guides.

mod common;

use common::phone::seeded_control;

/// Empty when the page is no wider than the window; otherwise how wide it is
/// and the first elements that stick out.
const OVERFLOW: &str = r#"(() => {
  const w = document.documentElement.clientWidth;
  const page = document.documentElement.scrollWidth;
  if (page <= w) return '';
  const out = [...document.querySelectorAll('body *')]
    .filter(e => { const r = e.getBoundingClientRect();
      return r.width > 0 && (r.right > w + 1 || (r.left + e.scrollWidth > w + 1 && getComputedStyle(e).overflowX === 'visible')); })
    .slice(0, 6)
    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
      (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\s+/).join('.') : '') +
      ' ' + Math.round(e.getBoundingClientRect().width) + 'px');
  return 'the page is ' + page + ' px wide in a ' + w + ' px window: ' + out.join(', ');
})()"#;

/// Forms that load when their button is pressed, opened on their screen.
const FORMS: &[(&str, &str, &str)] = &[
    ("beacons", "#open-deploy", "#deploy-agent"),
    ("beacons", "#open-add-beacon", "#beacon-network"),
    ("infrastructure", "#open-add-agent", "#token-name"),
    ("jobs", "#open-new-job", "#job-agent"),
    ("onboarding", "#open-new-invite", "#invite-name"),
    ("services", "#open-publish", "#service-agent"),
    ("settings-people", "#open-invite", "#invite-role"),
    ("settings-tokens", "#open-new-token", "#token-name"),
];

/// Whether the navigation's link to the current screen, if it has one, lies
/// within the navigation's box.
const CURRENT_LINK_SHOWN: &str = "(() => {
    const nav = document.querySelector('nav.mainnav');
    const link = nav.querySelector('a[aria-current=\"page\"]');
    if (!link) return 'true';
    const row = nav.getBoundingClientRect(), box = link.getBoundingClientRect();
    return String(box.left >= row.left - 1 && box.right <= row.right + 1);
})()";

async fn every_screen_fits(width: u32, locale: &str) {
    let (control, screens) = seeded_control().await;
    let name = format!("phone-{width}-{locale}");
    let b = common::open_browser(&name, width, 844, locale).await;
    b.sign_in(&control.base).await;
    let mut too_wide = Vec::new();
    for screen in &screens {
        b.goto(&format!("{}{}", control.base, screen.path)).await;
        let mut check = |what: String, found: String| {
            if !found.is_empty() {
                too_wide.push(format!("{what}: {found}"));
            }
        };
        check(
            screen.name.to_string(),
            b.page.evaluate_value(OVERFLOW).await.unwrap(),
        );
        // The navigation is one row, not three above every screen.
        let nav: f64 = b
            .page
            .evaluate_value(
                "String(document.querySelector('nav.mainnav').getBoundingClientRect().height)",
            )
            .await
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            nav < 60.0,
            "{}: the main navigation is {nav} px high at {width} px",
            screen.name
        );
        // In that row, which scrolls sideways, the current screen's link is
        // in view (app/src/assets/main_nav.js).
        assert_eq!(
            b.page.evaluate_value(CURRENT_LINK_SHOWN).await.unwrap(),
            "true",
            "{}: the current screen's link is scrolled out of the navigation at {width} px",
            screen.name
        );
        for (_, button, field) in FORMS.iter().filter(|(on, _, _)| *on == screen.name) {
            b.open_form(button, field).await;
            check(
                format!("{} {button}", screen.name),
                b.page.evaluate_value(OVERFLOW).await.unwrap(),
            );
            b.goto(&format!("{}{}", control.base, screen.path)).await;
        }
        if too_wide.last().is_some_and(|w| w.starts_with(screen.name)) {
            b.screenshot(screen.name).await;
        }
    }
    assert!(
        too_wide.is_empty(),
        "screens wider than a {width} px phone ({locale}):\n{}",
        too_wide.join("\n")
    );
    b.close().await;
}

#[tokio::test]
async fn every_screen_fits_360_px_in_english() {
    every_screen_fits(360, "en-US").await;
}

#[tokio::test]
async fn every_screen_fits_390_px_in_english() {
    every_screen_fits(390, "en-US").await;
}

#[tokio::test]
async fn every_screen_fits_360_px_in_russian() {
    every_screen_fits(360, "ru-RU").await;
}

#[tokio::test]
async fn every_screen_fits_390_px_in_russian() {
    every_screen_fits(390, "ru-RU").await;
}

/// On a phone the navigation scrolls sideways inside its row; a keyboard
/// user tabbing to its last link still sees it and can follow it.
#[tokio::test]
async fn the_phone_navigation_works_from_the_keyboard() {
    let (control, _) = seeded_control().await;
    let b = common::open_browser("phone-nav-keyboard", 360, 800, "ru-RU").await;
    b.sign_in(&control.base).await;
    b.page
        .locator("nav.mainnav a[href=\"/\"]")
        .focus()
        .await
        .unwrap();
    let last = "nav.mainnav a[href=\"/settings\"]";
    for _ in 0..7 {
        b.page.keyboard().press("Tab", None).await.unwrap();
    }
    let focused = b
        .page
        .evaluate_value("document.activeElement.getAttribute('href')")
        .await
        .unwrap();
    assert_eq!(focused, "/settings", "Tab walks the navigation in order");
    let inside = b
        .page
        .evaluate_value(
            "(() => { const r = document.activeElement.getBoundingClientRect(); \
             return String(r.left >= 0 && r.right <= document.documentElement.clientWidth); })()",
        )
        .await
        .unwrap();
    assert_eq!(inside, "true", "the focused link is scrolled into view");
    b.page.keyboard().press("Enter", None).await.unwrap();
    b.page
        .wait_for_url(&format!("{}/settings", control.base), None)
        .await
        .unwrap();
    b.wait_visible(&format!("{last}[aria-current=\"page\"]"))
        .await;
    // Opened on a screen at the end of the row, the row shows that screen's
    // link (once the screen has hydrated: the row is scrolled from Rust).
    b.goto(&format!("{}/settings", control.base)).await;
    let in_view = format!(
        "(() => {{ const r = document.querySelector('{}').getBoundingClientRect(); \
         return String(r.left >= 0 && r.right <= document.documentElement.clientWidth); }})()",
        last.replace('\'', "\\'")
    );
    let mut shown = String::new();
    for _ in 0..40 {
        shown = b.page.evaluate_value(&in_view).await.unwrap();
        if shown == "true" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(shown, "true", "the current screen's link is in view");
    b.close().await;
}

/// The labels the Russian guides name, on the screens where they sit.
#[tokio::test]
async fn russian_screens_use_the_guide_words() {
    let (control, _) = seeded_control().await;
    let b = common::open_browser("phone-guide-words", 390, 844, "ru-RU").await;
    b.sign_in(&control.base).await;
    let text_of = |selector: &'static str| {
        let page = b.page.clone();
        async move { page.locator(selector).inner_text().await.unwrap() }
    };
    let nav = text_of("nav.mainnav").await;
    for word in [
        "Обзор",
        "Сети",
        "Инфраструктура",
        "Сервисы",
        "Подключение",
        "Задачи",
    ] {
        assert!(nav.contains(word), "the navigation says «{word}»: {nav}");
    }
    b.goto(&format!("{}/networks", control.base)).await;
    assert!(text_of("main").await.contains("Добавить сеть"));
    b.goto(&format!("{}/infrastructure/beacons", control.base))
        .await;
    let beacons = text_of("main").await;
    assert!(
        beacons.contains("Развернуть новый Beacon"),
        "Beacons tab: {beacons}"
    );
    assert!(
        beacons.contains("Проверить Beacon"),
        "Beacons tab: {beacons}"
    );
    b.goto(&format!("{}/jobs", control.base)).await;
    assert!(text_of("main h1").await.contains("Задачи"));
    for screen in ["/", "/infrastructure", "/jobs", "/onboarding"] {
        b.goto(&format!("{}{screen}", control.base)).await;
        let all = text_of("body").await.to_lowercase();
        for old in ["маяк", "задани"] {
            assert!(!all.contains(old), "{screen} still says «{old}…»");
        }
    }
    b.close().await;
}
