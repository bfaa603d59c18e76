/** What Fastify itself sets for a JSON body: bodies already serialised are sent with it, so Fastify passes them through as they are. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
