//! `{VAR}` placeholders in built-in base URLs (Cloudflare's account and gateway ids), filled
//! from the environment when a request is made. A model whose URL names an unset variable has
//! no usable endpoint: it is left out of the available models, and a request to it fails with
//! the variable's name.

/// `url` with every `{NAME}` replaced by `lookup(NAME)`, or the first name that has no value.
pub fn expand(url: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(url.len());
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let name = &rest[open + 1..close];
        let value = lookup(name)
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| name.to_owned())?;
        out.push_str(&rest[..open]);
        out.push_str(value.trim());
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// [`expand`] from the process environment.
pub fn expand_from_env(url: &str) -> Result<String, String> {
    if !url.contains('{') {
        return Ok(url.to_owned());
    }
    expand(url, &|name| std::env::var(name).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_fill_or_name_the_missing_variable() {
        let lookup = |name: &str| (name == "ACCOUNT").then(|| "acct-1".to_owned());
        assert_eq!(
            expand("https://x/{ACCOUNT}/ai/v1", &lookup).as_deref(),
            Ok("https://x/acct-1/ai/v1")
        );
        assert_eq!(
            expand("https://x/{ACCOUNT}/{GATEWAY}", &lookup),
            Err("GATEWAY".to_owned())
        );
        assert_eq!(
            expand("https://x/v1", &lookup).as_deref(),
            Ok("https://x/v1")
        );
    }
}
