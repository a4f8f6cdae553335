//! Texts of the "Deploy new Beacon" wizard in English and Russian.

use crate::i18n::Lang;

pub struct DeployTexts {
    pub title: &'static str,
    pub intro: &'static str,
    pub not_for_running: &'static str,
    pub field_agent: &'static str,
    pub choose_agent: &'static str,
    pub agent_help: &'static str,
    pub no_agents: &'static str,
    pub field_network: &'static str,
    pub choose_network: &'static str,
    pub field_name: &'static str,
    pub name_help: &'static str,
    pub field_url: &'static str,
    pub url_help: &'static str,
    pub field_advertise: &'static str,
    pub advertise_help: &'static str,
    pub field_http_port: &'static str,
    pub http_port_help: &'static str,
    pub submit: &'static str,
    pub queued: &'static str,
    pub open_job: &'static str,
    pub then_add: &'static str,
}

const EN: DeployTexts = DeployTexts {
    title: "Deploy new Beacon",
    intro: "Runs a new Beacon in a container on one of your Agents: Control queues a “Deploy Beacon” job, the Agent writes its Compose stack, starts it and reports back.",
    not_for_running: "This creates a new managed container. For a Beacon that already runs, use “Add existing Beacon” above instead: deploying would start a second one.",
    field_agent: "Agent",
    choose_agent: "Choose an Agent…",
    agent_help: "Only Agents that are online and have Docker are listed.",
    no_agents: "No Agent is online with Docker. Add an Agent on a Docker host first (Add agent, below).",
    field_network: "Network",
    choose_network: "Choose a network…",
    field_name: "Name",
    name_help: "1–63 characters: lowercase letters, digits, - and _, starting with a letter or digit; the Compose project and container are named after it (kr-beacon-NAME).",
    field_url: "Public Beacon URL",
    url_help: "Where clients will reach this Beacon's API, e.g. https://beacon.example.net (your reverse proxy or the host port below). Added to the profile once the Beacon runs.",
    field_advertise: "Relay advertise address (host:port)",
    advertise_help: "The public address of the relay transport, usually the host's public name with port 7447.",
    field_http_port: "HTTP host port",
    http_port_help: "The port on the Agent's host that the Beacon API is published on (default 18080).",
    submit: "Deploy Beacon",
    queued: "Deployment queued.",
    open_job: "Follow the job",
    then_add: "When it has succeeded, Control adds the Beacon URL to the profile by itself, so that sidecars and users find it; watch for it in the list above.",
};

const RU: DeployTexts = DeployTexts {
    title: "Развернуть новый Beacon",
    intro: "Запускает новый Beacon в контейнере на одном из ваших Agent: Control ставит задачу «Развернуть Beacon», Agent пишет стек Compose, запускает его и сообщает результат.",
    not_for_running: "Так создаётся новый управляемый контейнер. Для уже работающего Beacon используйте «Добавить существующий Beacon» выше: развёртывание запустило бы второй.",
    field_agent: "Agent",
    choose_agent: "Выберите Agent…",
    agent_help: "Показаны только Agent в сети и с Docker.",
    no_agents: "Нет Agent в сети с Docker. Сначала добавьте Agent на узле с Docker (ниже, «Добавить Agent»).",
    field_network: "Сеть",
    choose_network: "Выберите сеть…",
    field_name: "Имя",
    name_help: "1–63 символа: строчные латинские буквы, цифры, - и _, начиная с буквы или цифры; по нему называются проект Compose и контейнер (kr-beacon-ИМЯ).",
    field_url: "Публичный адрес Beacon",
    url_help: "Адрес API этого Beacon для клиентов, например https://beacon.example.net (ваш обратный прокси или порт узла ниже). Добавляется в профиль, когда Beacon заработает.",
    field_advertise: "Адрес ретранслятора (узел:порт)",
    advertise_help: "Публичный адрес транспорта ретрансляции, обычно публичное имя узла и порт 7447.",
    field_http_port: "HTTP-порт узла",
    http_port_help: "Порт на узле Agent, на котором публикуется API Beacon (по умолчанию 18080).",
    submit: "Развернуть Beacon",
    queued: "Развёртывание поставлено в очередь.",
    open_job: "Следить за задачей",
    then_add: "Когда развёртывание пройдёт успешно, Control сам добавит адрес Beacon в профиль, чтобы sidecar и пользователи его нашли; он появится в списке выше.",
};

pub fn deploy_texts(lang: Lang) -> &'static DeployTexts {
    match lang {
        Lang::En => &EN,
        Lang::Ru => &RU,
    }
}
