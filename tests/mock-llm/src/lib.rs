//! Mock LLM server (being written).
