//! The end-to-end probe panel of a network's setup screen.

use protocol::probes::ProbeStage;
use protocol::Lang;

pub struct ProbeTexts {
    pub title: &'static str,
    pub intro: &'static str,
    /// "Probing {service} from Agent {agent} every {n} min."
    pub current: &'static str,
    pub none_yet: &'static str,
    pub field_service: &'static str,
    pub field_agent: &'static str,
    pub field_every: &'static str,
    /// "{name} — on Agent {agent}".
    pub service_option: &'static str,
    pub save: &'static str,
    pub saved: &'static str,
    pub remove: &'static str,
    pub remove_explain: &'static str,
    pub no_services: &'static str,
    pub no_agents: &'static str,
    pub history_title: &'static str,
    pub history_empty: &'static str,
    pub passed: &'static str,
    pub failed: &'static str,
    /// "stopped at: {stage}".
    pub stopped_at: &'static str,
    pub not_for_role: &'static str,
}

const EN: ProbeTexts = ProbeTexts {
    title: "End-to-end probe",
    intro: "An Agent on another host runs a KnotRoute node and opens the service's .knot address through the overlay, as a client would. A failure goes to the alert webhook once (probe.failed), and so does the recovery (probe.ok).",
    current: "Probing {service} from Agent {agent} every {n} min.",
    none_yet: "No probe is chosen for this network.",
    field_service: "Service",
    field_agent: "Probing Agent (best on another host)",
    field_every: "Every (minutes)",
    service_option: "{name} — on Agent {agent}",
    save: "Save and probe now",
    saved: "Saved: the first probe is queued.",
    remove: "Stop probing",
    remove_explain: "Control stops queuing the probe and its alerts. The history stays for 30 days.",
    no_services: "No service of this network has a .knot address yet: publish one on the Services screen first.",
    no_agents: "No Agent takes Docker jobs: the probe needs one on another host than the service.",
    history_title: "Recent probes",
    history_empty: "No probe has reported yet.",
    passed: "Passed",
    failed: "Failed",
    stopped_at: "stopped at: {stage}",
    not_for_role: "Your role can see the probe but not change it.",
};

const RU: ProbeTexts = ProbeTexts {
    title: "Сквозная проверка",
    intro: "Agent на другом хосте запускает узел KnotRoute и открывает адрес .knot сервиса через оверлей, как это сделал бы клиент. Сбой один раз уходит на вебхук оповещений (probe.failed), восстановление — тоже (probe.ok).",
    current: "Проверяется {service} с Agent {agent} каждые {n} мин.",
    none_yet: "Для этой сети проверка не выбрана.",
    field_service: "Сервис",
    field_agent: "Проверяющий Agent (лучше на другом хосте)",
    field_every: "Каждые (минут)",
    service_option: "{name} — на Agent {agent}",
    save: "Сохранить и проверить сейчас",
    saved: "Сохранено: первая проверка поставлена в очередь.",
    remove: "Остановить проверку",
    remove_explain: "Control перестанет ставить проверку в очередь и присылать её оповещения. История хранится 30 дней.",
    no_services: "Ни у одного сервиса этой сети ещё нет адреса .knot: сначала опубликуйте сервис в разделе «Сервисы».",
    no_agents: "Ни один Agent не принимает задачи Docker: для проверки нужен Agent на другом хосте, чем сервис.",
    history_title: "Последние проверки",
    history_empty: "Ни одна проверка ещё не отчиталась.",
    passed: "Прошла",
    failed: "Не прошла",
    stopped_at: "остановилась на этапе: {stage}",
    not_for_role: "Ваша роль позволяет видеть проверку, но не менять её.",
};

pub fn probe_texts(lang: Lang) -> &'static ProbeTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}

pub fn stage_label(stage: ProbeStage, lang: Lang) -> &'static str {
    match (stage, lang) {
        (ProbeStage::Node, Lang::En) => "the node on the probing Agent",
        (ProbeStage::Node, Lang::Ru) => "узел на проверяющем Agent",
        (ProbeStage::Overlay, Lang::En) => "the overlay (the address was not reached)",
        (ProbeStage::Overlay, Lang::Ru) => "оверлей (адрес не достигнут)",
        (ProbeStage::Service, Lang::En) => "the service (it answered with an error)",
        (ProbeStage::Service, Lang::Ru) => "сервис (он ответил ошибкой)",
        (ProbeStage::Timeout, Lang::En) => "the time limit",
        (ProbeStage::Timeout, Lang::Ru) => "лимит времени",
    }
}
