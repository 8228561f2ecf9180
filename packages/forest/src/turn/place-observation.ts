import type { ChatMessage } from "@relax/chat";
import type { HistoryEdit } from "../drift/history-edit";
import { ForestInputError } from "../errors/forest-input-error";
import type { InternalNode, InternalObservation, InternalResponse, InternalRoot } from "../node/forest-node";
import type { TransitionClass } from "../sample/training-sample";
import type { StateMatch } from "../state/match-state";

/** Where a request's generation continues from, and how the request is classified. */
export interface ObservationPlacement {
  /** An existing observation to generate from (a full match), when no new observation is needed. */
  target?: InternalObservation;
  /** The node a new observation hangs under (the root or a response). */
  attachTo?: InternalRoot | InternalResponse;
  /** Messages of the new observation (its delta). */
  messages: ChatMessage[];
  /** An unanswered observation the new one replaces (its messages are a prefix of the new ones). */
  supersede?: InternalObservation;
  transition: TransitionClass;
  linear: boolean;
  /** Every edit of committed responses found (tolerated, forked, or a rewrite). */
  edits: HistoryEdit[];
}

/**
 * Decides where a matched request's new observation goes and classifies the request (see
 * docs/contract.md#sessionforest):
 * - match on a response: the suffix is an observation under it (`append` if it was a leaf, else `branch`);
 * - match on an observation with an empty suffix: generate from it (`append` if unanswered, else `branch`);
 * - match on an observation with more messages: an observation never follows an observation, so the new
 *   one is its sibling holding its messages plus the suffix; an unanswered one is superseded (`append`),
 *   an answered one means the request diverged where a response stood (`branch`);
 * - no match: a new subtree under the root (`append` while nothing in the session was answered, else `reset`).
 * Edits override the class: forked benign edits or a rewritten response give `drift` (not linear);
 * tolerated edits turn an `append` into a linear `drift`.
 *
 * @throws ForestInputError when the request ends on a committed response (nothing to generate from).
 */
export function placeObservation(options: {
  match: StateMatch;
  messages: readonly ChatMessage[];
  root: InternalRoot;
  parentOf: (node: InternalNode) => InternalNode;
  hasResponseChild: (node: InternalNode) => boolean;
  firstRequest: boolean;
}): ObservationPlacement {
  const { match, messages, root, parentOf, hasResponseChild, firstRequest } = options;
  const matched = match.node;
  const suffix = messages.slice(match.depth);
  let placement: ObservationPlacement;
  if (matched.kind === "response") {
    if (suffix.length === 0) {
      throw new ForestInputError({
        path: "state.messages",
        reason: `ends with the committed response ${matched.stateHash}; a request must add a message after a response`,
      });
    }
    const linear = matched.children.length === 0;
    placement = {
      attachTo: matched,
      messages: suffix,
      transition: linear ? "append" : "branch",
      linear,
      edits: [],
    };
  } else if (matched.kind === "observation") {
    const linear = !hasResponseChild(matched);
    const transition = linear ? "append" : "branch";
    placement =
      suffix.length === 0
        ? { target: matched, messages: [], transition, linear, edits: [] }
        : {
            attachTo: parentOf(matched) as InternalRoot | InternalResponse,
            messages: [...matched.messages, ...suffix],
            ...(linear && { supersede: matched }),
            transition,
            linear,
            edits: [],
          };
  } else {
    placement = {
      attachTo: root,
      messages: suffix,
      transition: firstRequest ? "append" : "reset",
      linear: firstRequest,
      edits: [],
    };
  }

  placement.edits.push(...match.toleratedEdits, ...match.forkedEdits);
  if (match.forkedEdits.length === 0 && match.rewrittenAt !== undefined) {
    placement.edits.push({ kind: "rewritten", path: `messages[${match.rewrittenAt}]` });
  }
  if (match.forkedEdits.length > 0 || match.rewrittenAt !== undefined) {
    placement.transition = "drift";
    placement.linear = false;
  } else if (match.toleratedEdits.length > 0 && placement.transition === "append") {
    placement.transition = "drift";
  }
  return placement;
}
