//! The words of the onboarding guides, in English and Russian. Each platform's
//! steps name the exact values to enter; `code` blocks are copied verbatim.

use crate::onboarding::guide::GuideFacts;
use protocol::onboarding::{GuideStep, Platform};
use protocol::Lang;

fn step(text: impl Into<String>) -> GuideStep {
    GuideStep {
        text: text.into(),
        code: None,
    }
}

fn step_code(text: impl Into<String>, code: impl Into<String>) -> GuideStep {
    GuideStep {
        text: text.into(),
        code: Some(code.into()),
    }
}

/// The title and steps of one platform's guide.
pub fn guide_steps(platform: Platform, lang: Lang, f: &GuideFacts) -> (String, Vec<GuideStep>) {
    match lang {
        Lang::En => english(platform, f),
        Lang::Ru => russian(platform, f),
    }
}

/// The warning for a profile without a Beacon URL.
pub fn no_beacon_warning(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "This network profile has no Beacon URL. The link and the QR code carry only the Network ID, so apps cannot find the network by themselves: users will need another bootstrap path (a Beacon URL given to them separately). Add a Beacon to the profile to fix this.",
        Lang::Ru => "В этом сетевом профиле нет адреса Beacon. Ссылка и QR-код содержат только Network ID, поэтому приложения не смогут найти сеть сами: пользователям понадобится другой способ первого подключения (адрес Beacon, переданный отдельно). Чтобы это исправить, добавьте Beacon в профиль.",
    }
}

/// What the QR code is, for screen readers.
pub fn qr_label(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "QR code of the link that opens this network in KnotRoute",
        Lang::Ru => "QR-код ссылки, открывающей эту сеть в KnotRoute",
    }
}

/// Said instead of a QR code when the link does not fit in one.
pub fn qr_too_long(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "The link is too long for a QR code (many or long Beacon URLs): share the link or the steps instead.",
        Lang::Ru => "Ссылка слишком длинная для QR-кода (адресов Beacon много или они длинные): поделитесь ссылкой или шагами.",
    }
}

fn english(platform: Platform, f: &GuideFacts) -> (String, Vec<GuideStep>) {
    let name = &f.name;
    match platform {
        Platform::Windows => (
            format!("Join “{name}” on Windows"),
            vec![
                step("Install the KnotRoute app for Windows and start it."),
                step_code("Easiest: open this link on the PC; KnotRoute fills everything in and asks you to confirm.", &f.uri),
                step_code("Or by hand: Settings → Networks → Add network, and enter the Network ID:", &f.network_id),
                step_code("…and the Beacon URLs, one per line:", f.beacon_lines()),
                step("Turn on “.knot integration” in Settings, so that .knot addresses open in every browser and program."),
            ],
        ),
        Platform::Android => (
            format!("Join “{name}” on Android"),
            vec![
                step("Install the KnotRoute app for Android."),
                step("Scan the QR code with the camera, or open the link on the phone (“Open in KnotRoute”)."),
                step(format!("KnotRoute shows the network “{name}” and its Network ID: check them and confirm.")),
                step("Optional: for HTTPS sites under .knot without warnings, install the local CA certificate your administrator gives you (Settings → Security → Install a certificate)."),
            ],
        ),
        Platform::Ios => (
            format!("Join “{name}” on iPhone or iPad"),
            vec![
                step("Install the KnotRoute app."),
                step("Scan the QR code with the Camera app, or tap the link on this device (“Open in KnotRoute”)."),
                step(format!("KnotRoute shows the network “{name}” and its Network ID: check them and confirm.")),
            ],
        ),
        Platform::Linux => (
            format!("Join “{name}” on Linux"),
            vec![
                step_code("Save the network profile as knotroute.json:", &f.raw_profile),
                step_code("Check that the Beacons answer and the relay is reachable:", "knotroute doctor --config knotroute.json"),
                step_code("Start KnotRoute (keep it running, e.g. as a systemd service):", "knotroute run --config knotroute.json"),
                step_code("Programs reach .knot addresses through its SOCKS5 or HTTP proxy, for example:", "curl --proxy socks5h://127.0.0.1:1080 http://service.knot/\nexport HTTP_PROXY=http://127.0.0.1:8118 HTTPS_PROXY=http://127.0.0.1:8118"),
            ],
        ),
        Platform::Docker => (
            format!("Publish a Docker service in “{name}”"),
            vec![
                step_code("Give the sidecar container this environment (set the service name, the title the KnotRoute apps show in their service catalog, and its target container:port):", f.sidecar_env()),
                step("Mount a volume at /data: the service's private identity lives there and keeps its .knot address across redeploys. Put the sidecar in the same Docker network as the target."),
            ],
        ),
        Platform::Raw => (
            format!("“{name}” as a raw profile"),
            vec![step_code("The profile as JSON, for advanced users and scripts:", &f.raw_profile)],
        ),
    }
}

fn russian(platform: Platform, f: &GuideFacts) -> (String, Vec<GuideStep>) {
    let name = &f.name;
    match platform {
        Platform::Windows => (
            format!("Подключение к «{name}» в Windows"),
            vec![
                step("Установите приложение KnotRoute для Windows и запустите его."),
                step_code("Проще всего: откройте эту ссылку на компьютере — KnotRoute заполнит всё сам и попросит подтвердить.", &f.uri),
                step_code("Или вручную: Настройки → Сети → Добавить сеть, и введите Network ID:", &f.network_id),
                step_code("…и адреса Beacon, по одному в строке:", f.beacon_lines()),
                step("Включите «Интеграцию .knot» в настройках, чтобы адреса .knot открывались в любом браузере и программе."),
            ],
        ),
        Platform::Android => (
            format!("Подключение к «{name}» на Android"),
            vec![
                step("Установите приложение KnotRoute для Android."),
                step("Отсканируйте QR-код камерой или откройте ссылку на телефоне («Открыть в KnotRoute»)."),
                step(format!("KnotRoute покажет сеть «{name}» и её Network ID: проверьте их и подтвердите.")),
                step("По желанию: чтобы HTTPS-сайты в .knot открывались без предупреждений, установите локальный сертификат CA от администратора (Настройки → Безопасность → Установить сертификат)."),
            ],
        ),
        Platform::Ios => (
            format!("Подключение к «{name}» на iPhone или iPad"),
            vec![
                step("Установите приложение KnotRoute."),
                step("Отсканируйте QR-код приложением «Камера» или нажмите ссылку на этом устройстве («Открыть в KnotRoute»)."),
                step(format!("KnotRoute покажет сеть «{name}» и её Network ID: проверьте их и подтвердите.")),
            ],
        ),
        Platform::Linux => (
            format!("Подключение к «{name}» в Linux"),
            vec![
                step_code("Сохраните профиль сети в файл knotroute.json:", &f.raw_profile),
                step_code("Проверьте, что каждый Beacon отвечает и ретранслятор доступен:", "knotroute doctor --config knotroute.json"),
                step_code("Запустите KnotRoute (оставьте работать, например как службу systemd):", "knotroute run --config knotroute.json"),
                step_code("Программы открывают адреса .knot через его прокси SOCKS5 или HTTP, например:", "curl --proxy socks5h://127.0.0.1:1080 http://service.knot/\nexport HTTP_PROXY=http://127.0.0.1:8118 HTTPS_PROXY=http://127.0.0.1:8118"),
            ],
        ),
        Platform::Docker => (
            format!("Публикация Docker-сервиса в «{name}»"),
            vec![
                step_code("Передайте контейнеру sidecar это окружение (укажите имя сервиса, название, которое приложения KnotRoute покажут в каталоге сервисов, и его цель контейнер:порт):", f.sidecar_env()),
                step("Подключите том в /data: там хранится приватная идентичность сервиса, и адрес .knot сохраняется при переразвёртывании. Sidecar должен быть в той же сети Docker, что и цель."),
            ],
        ),
        Platform::Raw => (
            format!("«{name}» как профиль JSON"),
            vec![step_code("Профиль в формате JSON для опытных пользователей и скриптов:", &f.raw_profile)],
        ),
    }
}
