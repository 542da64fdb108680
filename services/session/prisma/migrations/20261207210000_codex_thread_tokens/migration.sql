-- A Codex thread's token total when its rollout was kept: a turn that resumes the thread meters its own tokens from
-- there (Codex reports the thread's earlier total again as it resumes, at no fixed point). Additive.
ALTER TABLE "codex_threads" ADD COLUMN "input_tokens" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "output_tokens" INTEGER NOT NULL DEFAULT 0;
