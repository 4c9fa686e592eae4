//! The model's plan (`update_plan`) as a checklist a person reads at a
//! glance: done steps ticked, the one under way marked, the rest open.

use crate::call::{PlanStep, StepStatus};

/// The checklist's lines: a heading with the model's note, then a step a
/// line.
pub(crate) fn lines(explanation: Option<&str>, plan: &[PlanStep]) -> Vec<String> {
    let done = plan
        .iter()
        .filter(|s| s.status == StepStatus::Completed)
        .count();
    let mut out = vec![match explanation.map(str::trim).filter(|e| !e.is_empty()) {
        Some(e) => format!("plan ({done}/{}): {e}", plan.len()),
        None => format!("plan ({done}/{}):", plan.len()),
    }];
    out.extend(plan.iter().map(|s| {
        let mark = match s.status {
            StepStatus::Completed => "✔",
            StepStatus::InProgress => "▶",
            StepStatus::Pending => "☐",
        };
        // One line a step, whatever the model put in it.
        let step: String = s.step.split_whitespace().collect::<Vec<_>>().join(" ");
        format!("  {mark} {step}")
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_is_one_line_marked_by_its_status_under_a_count() {
        let plan = vec![
            PlanStep {
                step: "Read the failing test".into(),
                status: StepStatus::Completed,
            },
            PlanStep {
                step: "Fix the\nparser".into(),
                status: StepStatus::InProgress,
            },
            PlanStep {
                step: "Run the suite".into(),
                status: StepStatus::Pending,
            },
        ];
        assert_eq!(
            lines(Some("tests first"), &plan),
            [
                "plan (1/3): tests first",
                "  ✔ Read the failing test",
                "  ▶ Fix the parser",
                "  ☐ Run the suite"
            ]
        );
    }
}
