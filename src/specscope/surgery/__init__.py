"""specscope.surgery: plan, validate, apply and verify rewrites of checkpoints (draft heads, configs, index).

Public API (each ``plan_*`` returns a :class:`SurgeryPlan`; nothing is written until :func:`apply_plan`)::

    plan_extract(src, prefix, out)                          -> SurgeryPlan
    plan_graft(target, src, prefix, out)                    -> SurgeryPlan
    plan_quantize_draft(src, out, scheme=, prefix=, layout=, input_amax=, workers=) -> SurgeryPlan
    plan_reindex(ckpt, out=None)                            -> SurgeryPlan   (in place when out is None)
    plan_patch_config(ckpt, exclude_unquantized=, sync=, out=) -> SurgeryPlan
    plan_dflash_layers(draft, all_sliding=True, out=)       -> SurgeryPlan
    check_plan(plan)                                        -> PlanCheck (validation, up to date?)
    apply_plan(plan, progress=False, run_audit=True, check=None) -> SurgeryResult
    compare_checkpoints(a, b, prefix)                       -> list[TensorComparison]

The NVFP4 codec lives in :mod:`specscope.surgery.nvfp4`.
"""

from specscope.surgery.apply import apply_plan
from specscope.surgery.compare import TensorComparison, compare_checkpoints
from specscope.surgery.graft import plan_extract, plan_graft, plan_reindex
from specscope.surgery.patch import plan_dflash_layers, plan_patch_config
from specscope.surgery.plan import SurgeryPlan, SurgeryResult
from specscope.surgery.quantize import plan_quantize_draft
from specscope.surgery.validate import PlanCheck, check_plan, validate_plan

__all__ = [
    "SurgeryPlan",
    "SurgeryResult",
    "TensorComparison",
    "apply_plan",
    "validate_plan",
    "check_plan",
    "PlanCheck",
    "compare_checkpoints",
    "plan_extract",
    "plan_graft",
    "plan_reindex",
    "plan_patch_config",
    "plan_dflash_layers",
    "plan_quantize_draft",
]
