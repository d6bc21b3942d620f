//! pi-coding-agent: the coding agent built on pi-agent and pi-ai.
