//! Skills in the model context: the system prompt list and `/skill:name` expansion.

use super::{Skill, SkillError, SkillRegistry};
use crate::frontmatter;

/// The command prefix that invokes a skill by name.
pub const SKILL_COMMAND_PREFIX: &str = "/skill:";

/// The skill list block of the system prompt, or `""` when no skill is visible to the model.
/// Skills with `disable-model-invocation` are left out. The block starts with a blank line so it
/// can be appended directly.
pub fn format_skills_for_prompt<'a>(skills: impl IntoIterator<Item = &'a Skill>) -> String {
    let visible: Vec<&Skill> = skills
        .into_iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n\nThe skills below give specialised instructions for particular tasks.\n\
         When a task matches a skill's description, load the skill's file with the read tool.\n\
         Relative paths inside a skill file are relative to the skill's directory (the folder that \
         holds the file); turn them into absolute paths before using them in tool calls.\n\n\
         <available_skills>",
    );
    for skill in visible {
        out.push_str("\n  <skill>\n    <name>");
        out.push_str(&escape_xml(&skill.name));
        out.push_str("</name>\n    <description>");
        out.push_str(&escape_xml(&skill.description));
        out.push_str("</description>\n    <location>");
        out.push_str(&escape_xml(&skill.file_path.to_string_lossy()));
        out.push_str("</location>\n  </skill>");
    }
    out.push_str("\n</available_skills>");
    out
}

/// Escapes `&`, `<`, `>` and `"` for an XML attribute value.
pub fn escape_xml_attr(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Escapes the five XML special characters.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

impl SkillRegistry {
    /// Expands `/skill:name args` into the text of this turn's user message: the skill body
    /// without front matter inside a `<skill>` element, followed by the arguments. Text that is
    /// not a skill command, or names an unknown skill, is returned unchanged. Hidden skills
    /// (`disable-model-invocation`) expand like any other.
    pub fn expand_command(&self, text: &str) -> Result<String, SkillError> {
        let Some(rest) = text.strip_prefix(SKILL_COMMAND_PREFIX) else {
            return Ok(text.to_string());
        };
        let (name, args) = match rest.find(char::is_whitespace) {
            Some(at) => (&rest[..at], rest[at..].trim()),
            None => (rest, ""),
        };
        let Some(skill) = self.get(name) else {
            return Ok(text.to_string());
        };
        let content =
            std::fs::read_to_string(&skill.file_path).map_err(|source| SkillError::Read {
                name: skill.name.clone(),
                path: skill.file_path.clone(),
                source,
            })?;
        let body = frontmatter::strip(&content);
        let mut out = format!(
            "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
            skill.name,
            skill.file_path.display(),
            skill.base_dir.display(),
            body.trim()
        );
        if !args.is_empty() {
            out.push_str("\n\n");
            out.push_str(args);
        }
        Ok(out)
    }
}
