import type { AssessmentResult, NotificationConfiguration, Run, Workspace } from "./state";
import { API_PREFIX } from "./jsonapi";

/**
 * Bodies of run and assessment notifications. The generic payloads follow the seed's tables
 * field by field; chat-a and chat-b bodies are modelled on the incoming-webhook formats of the
 * two chat services they stand for (a Slack-style `text` + `attachments`, and a Teams-style
 * MessageCard); email bodies are a subject and a text.
 */

export const TRIGGER_MESSAGES: Record<string, string> = {
  "run:created": "Run created",
  "run:planning": "Run planning",
  "run:needs_attention": "Run needs attention",
  "run:applying": "Run applying",
  "run:completed": "Run completed",
  "run:errored": "Run errored",
  "assessment:drifted": "Drift detected",
  "assessment:check_failure": "Checks failed",
  "assessment:failed": "Health assessment failed",
};

/** What every non-generic format says, built once per event. */
export interface Summary {
  title: string;
  text: string;
  url: string;
  facts: [string, string][];
  ok: boolean;
}

export function runUrl(baseUrl: string, run: Run): string {
  return `${baseUrl}${API_PREFIX}/runs/${run.id}`;
}

export function runPayload(baseUrl: string, nc: NotificationConfiguration, ws: Workspace, run: Run, trigger: string): object {
  return {
    payload_version: 1,
    notification_configuration_id: nc.id,
    run_url: runUrl(baseUrl, run),
    run_id: run.id,
    run_message: run.message,
    run_created_at: run.createdAt,
    run_created_by: run.createdByName,
    workspace_id: ws.id,
    workspace_name: ws.name,
    organization_name: ws.organization,
    notifications: [
      {
        message: TRIGGER_MESSAGES[trigger] ?? trigger,
        trigger,
        run_status: run.status,
        run_updated_at: run.updatedAt,
        run_updated_by: run.updatedByName,
      },
    ],
  };
}

export function runSummary(baseUrl: string, ws: Workspace, run: Run, trigger: string): Summary {
  return {
    title: `${TRIGGER_MESSAGES[trigger] ?? trigger}: ${ws.organization}/${ws.name}`,
    text: run.message,
    url: runUrl(baseUrl, run),
    facts: [
      ["Run", run.id],
      ["Status", run.status],
      ["Created by", run.createdByName ?? "unknown"],
    ],
    ok: trigger !== "run:errored" && trigger !== "run:needs_attention",
  };
}

export function assessmentPayload(
  baseUrl: string,
  nc: NotificationConfiguration,
  ws: Workspace,
  trigger: string,
  result: AssessmentResult,
  prior: AssessmentResult | null,
): object {
  return {
    payload_version: 2,
    notification_configuration_id: nc.id,
    notification_configuration_url: `${baseUrl}${API_PREFIX}/notification-configurations/${nc.id}`,
    trigger_scope: "assessment",
    trigger,
    message: TRIGGER_MESSAGES[trigger] ?? trigger,
    details: {
      new_assessment_result: resultBody(result),
      prior_assessment_result: prior ? resultBody(prior) : null,
      workspace_id: ws.id,
      workspace_name: ws.name,
      organization_name: ws.organization,
    },
  };
}

/** The assessment result object of the seed (the workspace id is ours, not the payload's). */
function resultBody(result: AssessmentResult): object {
  const { workspaceId: _omit, ...body } = result;
  return body;
}

export function assessmentSummary(ws: Workspace, trigger: string, result: AssessmentResult): Summary {
  return {
    title: `${TRIGGER_MESSAGES[trigger] ?? trigger}: ${ws.organization}/${ws.name}`,
    text: `Assessment ${result.id}`,
    url: result.url,
    facts: [
      ["Drifted resources", String(result.resources_drifted)],
      ["Checks failed", String(result.checks_failed)],
      ["Succeeded", String(result.succeeded)],
    ],
    ok: false,
  };
}

/** Slack-style incoming webhook: `text` plus one attachment with fields. */
export function chatA(s: Summary): object {
  return {
    text: `${s.title}: ${s.text}`,
    attachments: [
      {
        color: s.ok ? "good" : "danger",
        title: s.title,
        title_link: s.url,
        text: s.text,
        fields: s.facts.map(([title, value]) => ({ title, value, short: true })),
      },
    ],
  };
}

/** Teams-style MessageCard with a facts section and a link to the run or result. */
export function chatB(s: Summary): object {
  return {
    "@type": "MessageCard",
    "@context": "https://schema.org/extensions",
    summary: s.title,
    themeColor: s.ok ? "2EB886" : "D00000",
    title: s.title,
    sections: [{ activityTitle: s.text, facts: s.facts.map(([name, value]) => ({ name, value })) }],
    potentialAction: [{ "@type": "OpenUri", name: "Open", targets: [{ os: "default", uri: s.url }] }],
  };
}

export function email(s: Summary): object {
  return { subject: s.title, text: [s.text, ...s.facts.map(([k, v]) => `${k}: ${v}`), s.url].join("\n") };
}
