//! The model's plan as a value: the arguments of `update_plan` (Codex's
//! shape), read once here so the tool, the round that shows the plan, the
//! front ends and Claude Code's hooks (`TodoWrite`) see one thing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The built-in that keeps the plan.
pub(crate) const UPDATE_PLAN: &str = "update_plan";

/// One step and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    pub step: String,
    pub status: StepStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
}

/// A call's arguments, read: the steps and the model's note.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct PlanUpdate {
    pub plan: Vec<PlanStep>,
    #[serde(default)]
    pub explanation: Option<String>,
}

impl PlanUpdate {
    /// The update `args` make, or why they make none.
    pub(crate) fn read(args: &Value) -> Result<PlanUpdate, String> {
        let u: PlanUpdate = serde_json::from_value(args.clone()).map_err(|e| e.to_string())?;
        if u.plan
            .iter()
            .filter(|s| s.status == StepStatus::InProgress)
            .count()
            > 1
        {
            return Err("at most one step can be in_progress at a time".into());
        }
        if let Some(s) = u.plan.iter().find(|s| s.step.trim().is_empty()) {
            return Err(format!("a step has no text ({:?})", s.status));
        }
        Ok(u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plan_reads_in_codexs_shape_and_two_steps_in_progress_are_refused() {
        let u = PlanUpdate::read(&json!({"explanation": "tests first",
            "plan": [{"step": "Read the failing test", "status": "completed"},
                     {"step": "Fix the parser", "status": "in_progress"},
                     {"step": "Run the suite", "status": "pending"}]}))
        .unwrap();
        assert_eq!(u.plan.len(), 3);
        assert_eq!(u.plan[1].status, StepStatus::InProgress);
        assert_eq!(u.explanation.as_deref(), Some("tests first"));
        let two = PlanUpdate::read(&json!({"plan": [{"step": "a", "status": "in_progress"},
            {"step": "b", "status": "in_progress"}]}));
        assert!(two.unwrap_err().contains("at most one"));
        assert!(PlanUpdate::read(&json!({"plan": [{"step": "a", "status": "doing"}]})).is_err());
    }
}
