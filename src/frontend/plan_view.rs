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

/// The checklist drawn live under a running turn: at most `max` steps,
/// the window kept on the first step not done (the one before it shown
/// too), what is left out counted, so a long plan never pushes the line
/// being typed off the screen.
pub(crate) fn live_lines(explanation: Option<&str>, plan: &[PlanStep], max: usize) -> Vec<String> {
    let mut all = lines(explanation, plan);
    if plan.len() <= max {
        return all;
    }
    let open = plan
        .iter()
        .position(|s| s.status != StepStatus::Completed)
        .unwrap_or(plan.len());
    let start = open.saturating_sub(1).min(plan.len() - max);
    let after = plan.len() - start - max;
    let mut out = vec![all.remove(0)];
    if start > 0 {
        out.push(format!("  … {start} earlier"));
    }
    out.extend(all.drain(start..start + max));
    if after > 0 {
        out.push(format!("  … {after} more"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(done: usize, total: usize) -> Vec<PlanStep> {
        (0..total)
            .map(|i| PlanStep {
                step: format!("step {i}"),
                status: match i.cmp(&done) {
                    std::cmp::Ordering::Less => StepStatus::Completed,
                    std::cmp::Ordering::Equal => StepStatus::InProgress,
                    std::cmp::Ordering::Greater => StepStatus::Pending,
                },
            })
            .collect()
    }

    #[test]
    fn a_long_plan_is_drawn_live_around_the_step_under_way() {
        assert_eq!(live_lines(None, &steps(1, 3), 3), lines(None, &steps(1, 3)));
        assert_eq!(
            live_lines(None, &steps(5, 10), 3),
            [
                "plan (5/10):",
                "  … 4 earlier",
                "  ✔ step 4",
                "  ▶ step 5",
                "  ☐ step 6",
                "  … 3 more"
            ]
        );
        let start = live_lines(None, &steps(0, 10), 3);
        assert_eq!(
            start[1..],
            ["  ▶ step 0", "  ☐ step 1", "  ☐ step 2", "  … 7 more"]
        );
        let end = live_lines(None, &steps(10, 10), 3);
        assert_eq!(
            end[1..],
            ["  … 7 earlier", "  ✔ step 7", "  ✔ step 8", "  ✔ step 9"]
        );
    }

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
