//! `update_plan`: the model's task list, in the name and shape Codex gives
//! it — `{"plan": [{"step", "status"}], "explanation"?}` — so a model trained
//! on it needs no new words. The list is for the person: the round shows it
//! (a `plan_updated` event, an editor's `plan` update) and the session keeps
//! it as the call it is. It changes nothing, so it runs in every mode.

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::call::PlanUpdate;
use crate::model::ToolSpec;
use crate::policy::Hints;
use crate::tools::{OnStart, Tool, ToolOutput};

pub(crate) use crate::call::UPDATE_PLAN as NAME;

pub(crate) struct UpdatePlan;

impl Tool for UpdatePlan {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: NAME.into(),
            description: "Your task list, shown to the person as a checklist. Send the whole plan \
                each time, each step pending, in_progress (one at most) or completed."
                .into(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": {
                    "explanation": {"type": "string"},
                    "plan": {"type": "array", "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string"},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["step", "status"]
                    }}
                },
                "required": ["plan"]
            }),
        }
    }

    fn hints(&self, _args: &Value) -> Hints {
        Hints {
            read_only: true,
            ..Hints::default()
        }
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _cancel: &'a CancellationToken,
        on_start: OnStart<'a>,
    ) -> BoxFuture<'a, ToolOutput> {
        Box::pin(async move {
            on_start();
            match PlanUpdate::read(&args) {
                Ok(_) => ToolOutput::ok("Plan updated"),
                Err(why) => ToolOutput::error(format!("the plan was not updated: {why}")),
            }
        })
    }
}
