//! The `azure-openai-responses` adapter: OpenAI's Responses API as Azure OpenAI serves it. The
//! body and the stream are OpenAI's; what differs is where it goes and how it authenticates:
//!
//! - the endpoint is `AZURE_OPENAI_BASE_URL`, else
//!   `https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com/openai/v1`, else the model's base
//!   URL (models.json); an Azure host given without a path gets `/openai/v1`;
//! - every request carries `?api-version=` (`AZURE_OPENAI_API_VERSION`, default `v1`);
//! - the key goes in `api-key`, not `Authorization`;
//! - the request's model is the deployment name: `AZURE_OPENAI_DEPLOYMENT_NAME_MAP`
//!   (`model=deployment,…`) maps catalog ids to the user's deployments.

use crate::options::StreamOptions;
use crate::protocol::{Decoder, HttpRequest, Protocol};
use crate::providers::openai_responses::OpenAiResponses;
use crate::types::{Context, Model};

pub struct AzureOpenAiResponses;

/// The api-version when the user sets none: Azure's stable v1 API.
const DEFAULT_API_VERSION: &str = "v1";

impl Protocol for AzureOpenAiResponses {
    fn api(&self) -> &'static str {
        "azure-openai-responses"
    }

    fn build_request(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
        api_key: Option<&str>,
    ) -> Result<HttpRequest, String> {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let base_url = endpoint(model, &env)?;
        let deployment = Model {
            id: deployment_name(
                &model.id,
                env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP").as_deref(),
            ),
            base_url: base_url.clone(),
            ..model.clone()
        };
        let mut request = OpenAiResponses.build_request(&deployment, context, options, None)?;
        let version = env("AZURE_OPENAI_API_VERSION");
        let version = version.as_deref().unwrap_or(DEFAULT_API_VERSION);
        request.url = format!("{}?api-version={version}", request.url);
        if let Some(key) = api_key.filter(|k| !k.is_empty()) {
            let own = vec![("api-key".to_owned(), key.to_owned())];
            request.headers = super::request_headers(model, own, options);
        }
        Ok(request)
    }

    fn decoder(&self, model: &Model) -> Box<dyn Decoder> {
        OpenAiResponses.decoder(model)
    }

    fn normalize_tool_call_id(&self, id: &str) -> String {
        OpenAiResponses.normalize_tool_call_id(id)
    }
}

/// The base URL requests go to, from the environment or the model.
pub fn endpoint(model: &Model, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let chosen = env("AZURE_OPENAI_BASE_URL")
        .or_else(|| {
            env("AZURE_OPENAI_RESOURCE_NAME")
                .map(|name| format!("https://{}.openai.azure.com/openai/v1", name.trim()))
        })
        .or_else(|| Some(model.base_url.clone()).filter(|u| !u.trim().is_empty()))
        .ok_or_else(|| {
            "Azure OpenAI needs an endpoint: set AZURE_OPENAI_BASE_URL or \
             AZURE_OPENAI_RESOURCE_NAME, or a baseUrl for provider \"azure\" in models.json"
                .to_owned()
        })?;
    normalize(chosen.trim())
}

/// An Azure host given bare (or with `/openai`, or with the full `/openai/v1/responses`) gets
/// the `/openai/v1` base path; anything else is used as given.
fn normalize(raw: &str) -> Result<String, String> {
    let mut url = reqwest::Url::parse(raw.trim_end_matches('/'))
        .map_err(|e| format!("invalid Azure OpenAI base URL \"{raw}\": {e}"))?;
    let host = url.host_str().unwrap_or_default().to_owned();
    let azure_host = [
        ".openai.azure.com",
        ".cognitiveservices.azure.com",
        ".ai.azure.com",
    ]
    .iter()
    .any(|suffix| host.ends_with(suffix));
    let path = url.path().trim_end_matches('/').to_owned();
    if azure_host && ["", "/openai", "/openai/v1/responses"].contains(&path.as_str()) {
        url.set_path("/openai/v1");
        url.set_query(None);
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// The deployment serving `model_id`: its entry in the `model=deployment,…` map, else the id.
pub fn deployment_name(model_id: &str, map: Option<&str>) -> String {
    map.unwrap_or_default()
        .split(',')
        .filter_map(|entry| entry.split_once('='))
        .map(|(model, deployment)| (model.trim(), deployment.trim()))
        .find(|(model, deployment)| *model == model_id && !deployment.is_empty())
        .map_or_else(
            || model_id.to_owned(),
            |(_, deployment)| deployment.to_owned(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(base_url: &str) -> Model {
        Model {
            id: "gpt-test".into(),
            name: "GPT test".into(),
            api: "azure-openai-responses".into(),
            provider: "azure".into(),
            base_url: base_url.into(),
            reasoning: true,
            input: vec![crate::types::Modality::Text],
            cost: Default::default(),
            context_window: 400_000,
            max_tokens: 128_000,
            headers: None,
            compat: None,
        }
    }

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn endpoint_precedence_and_shape() {
        let m = model("");
        let both = vars(&[
            ("AZURE_OPENAI_BASE_URL", "https://proxy.example/az"),
            ("AZURE_OPENAI_RESOURCE_NAME", "res"),
        ]);
        assert_eq!(endpoint(&m, &both).unwrap(), "https://proxy.example/az");
        let resource = vars(&[("AZURE_OPENAI_RESOURCE_NAME", "res")]);
        assert_eq!(
            endpoint(&m, &resource).unwrap(),
            "https://res.openai.azure.com/openai/v1"
        );
        let bare = vars(&[("AZURE_OPENAI_BASE_URL", "https://res.openai.azure.com/")]);
        assert_eq!(
            endpoint(&m, &bare).unwrap(),
            "https://res.openai.azure.com/openai/v1"
        );
        let from_model = model("https://res.cognitiveservices.azure.com/openai");
        assert_eq!(
            endpoint(&from_model, &vars(&[])).unwrap(),
            "https://res.cognitiveservices.azure.com/openai/v1"
        );
        let missing = endpoint(&m, &vars(&[])).unwrap_err();
        assert!(missing.contains("AZURE_OPENAI_RESOURCE_NAME"), "{missing}");
    }

    #[test]
    fn deployment_map() {
        let map = Some(" gpt-test = team-gpt , other=x");
        assert_eq!(deployment_name("gpt-test", map), "team-gpt");
        assert_eq!(deployment_name("gpt-else", map), "gpt-else");
        assert_eq!(deployment_name("gpt-test", Some("gpt-test=")), "gpt-test");
        assert_eq!(deployment_name("gpt-test", None), "gpt-test");
    }
}
