/** A model the server answers `GET /v1/models` with. */
export interface ModelInfo {
  id: string;
  /** Unix seconds. @default 0 */
  created?: number;
  /** @default "relax" */
  ownedBy?: string;
  /** Anthropic `display_name`. @default id */
  displayName?: string;
}

/**
 * The model list in the caller's dialect: Anthropic `{data: [{type: "model", id, display_name,
 * created_at}], has_more, first_id, last_id}` when the request carries `anthropic-version`, else OpenAI
 * `{object: "list", data: [{id, object: "model", created, owned_by}]}`.
 */
export function buildModelList(models: readonly ModelInfo[], anthropic: boolean): unknown {
  if (anthropic) {
    return {
      data: models.map((model) => ({
        type: "model",
        id: model.id,
        display_name: model.displayName ?? model.id,
        created_at: new Date((model.created ?? 0) * 1000).toISOString(),
      })),
      has_more: false,
      first_id: models[0]?.id ?? null,
      last_id: models.at(-1)?.id ?? null,
    };
  }
  return {
    object: "list",
    data: models.map((model) => ({
      id: model.id,
      object: "model",
      created: model.created ?? 0,
      owned_by: model.ownedBy ?? "relax",
    })),
  };
}
