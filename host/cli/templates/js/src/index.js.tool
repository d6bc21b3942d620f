// The `{{ident}}` tool: counts the words and lines of a text. `describe` says what the tool is
// (its JSON Schema as text); `execute` runs one call. Throwing a string makes the call an
// error result the model sees.

import { log } from 'pi:extension/host@{{wit_version}}';

export const toolGuest = {
  describe() {
    return [
      {
        name: '{{ident}}',
        label: '{{name}}',
        description: 'Counts the words and lines of a text.',
        parametersSchema: JSON.stringify({
          type: 'object',
          properties: { text: { type: 'string', description: 'The text to count.' } },
          required: ['text'],
        }),
        promptSnippet: undefined,
        promptGuidelines: [],
        executionMode: 'parallel',
      },
    ];
  },

  execute(call) {
    const { text } = JSON.parse(call.arguments);
    if (typeof text !== 'string') throw '`text` must be a string';
    const words = text.split(/\s+/).filter((w) => w !== '').length;
    const lines = text === '' ? 0 : text.split('\n').length;
    log('debug', `counted ${words} words`);
    return {
      content: [{ tag: 'text', val: `${words} words, ${lines} lines` }],
      details: JSON.stringify({ words, lines }),
      isError: false,
    };
  },
};
