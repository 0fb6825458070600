/**
 * The API both front ends (the CLI, the workbench server) are thin layers over, and that tests
 * call in-process: the only door from a front end into the core (scenario/, systems/, engine/,
 * stats/). One module per verb under src/api/; this file is their public face. It reads a
 * scenario file (api/read.ts) and touches no other file: the front ends and report/ write.
 */
export type { ScenarioIssue } from './scenario/load.js';
export type { ValidScenario } from './scenario/validate.js';
export type { ScenarioResult, CaseResult, Metric, RulesSystem } from './systems/types.js';
export type { Executor, TaskOptions } from './engine/executor.js';
export type { BatchTask } from './engine/chunk.js';
export { validateText, validateLoaded, valuePosition, runScenario, type RunScenarioOptions } from './api/run.js';
export { exactScenario, exactDifferences, checkScenario, unpairedDifferences, checkVerdict, judgeCheck, checkPassed, emptyCheckTally, CHECK_Z_LIMIT, type ExactCase, type CheckRow, type CheckVerdict, type CheckTally } from './api/exact.js';
export { solveAfterSweep, type SweepSolve, type SweepSolveRequest, type SweepSolveOptions } from './api/sweep-solve.js';
export { solveJson, solveScenario, solveSweep, solvePlan, solveRange, SolveInputError, type SolveNext, type SolveProblem, type SolvePlan, type SolveOptions, type SolveResult, type SolveSweepResult, type SolvePhase } from './api/solve.js';
export { chunkCount, emptyShards, shardChunks, runShard, mergeShards, shardOverrides, ShardError, type ShardData } from './api/shard.js';
export { rosterOf, RosterInputError, type RosterEntry } from './api/roster.js';
export { tunablesOf, effectiveValues, parseSettings, TuningInputError, type Tunable, type TunableKind } from './api/tunables.js';
export { sensitivityScenario, parseStep, OTHER_GAME, type Step, type SensitivityOptions, type SensitivityResult, type SensitivityRow } from './api/sensitivity.js';
export { answerMetrics, answerOrder, type AnswerColumns } from './api/answer.js';
export { plateauText, type Plateau } from './api/plateau.js';
export { tuneScenario, sweptValues, parseTarget, parseRange, missedBy, gapText, TuneInputError, type TuneProblem, type TuneParam, type TuneOptions, type TuneResult, type TuneTarget, type TuneEvaluation, type TargetCheck, type TuneEdge } from './api/tune.js';
export {
  describeControls,
  liveScenario,
  sweepScenario,
  tunedScenario,
  commandCase,
  tunedYaml,
  tunedName,
  LOADED,
  TUNED,
  MAX_SWEEP_POINTS,
  type Control,
  type ControlGroup,
  type ValueIssue,
  type LiveOptions,
  type SweepAxis,
  type CommandCase,
} from './api/live.js';
export { testScenario, prepareExact, judge, TEST_CONFIDENCE, TEST_MAX_FACTOR, type TestOptions, type ScenarioTestResult, type AssertionResult, type Verdict } from './api/test.js';
export { diffSummaries, diffSets, DiffError, DIFF_ALPHA, scenarioSettings, summaryShapeProblem, settingChanges, type SettingChange, type DiffResult, type DiffRow, type DiffScenario, type DiffOptions, type SummaryDoc } from './api/diff.js';
export { GITIGNORE_LINES, initPlan, initSystems, mergeScripts, newPackageJson, starterScenario, InitInputError, STARTERS, INIT_SCRIPTS, type InitPlan, type InitFile, type ScriptsMerge } from './api/init.js';
export {
  readResult,
  addRecord,
  analyzeHistory,
  parseStore,
  storeText,
  checkMarker,
  HistoryError,
  HISTORY_MARKER,
  HISTORY_MARKER_DOC,
  HISTORY_LOG,
  BENCH_TOLERANCE,
  type CommitInfo,
  type HistoryRecord,
  type HistoryAnalysis,
  type HistorySeries,
  type HistoryMove,
} from './api/history.js';

// The core's pieces a front end names itself: the worker pool and executors, the message
// catalogue and limits, issue and path formatting, the systems' list and their metric docs.
export { PoolExecutor, WorkerFailure, exitWhenThreadsLoaded } from './api/pool.js';
export { inlineExecutor, mainThreadExecutor } from './api/executors.js';
export { CancelledError } from './engine/executor.js';
export { resultLength } from './engine/chunk.js';
export { chunkSize } from './engine/run.js';
export { readText, readRegularFile, errCode, NotAFile, TooLarge } from './api/read.js';
export { MSG } from './scenario/messages.js';
export { LIMITS } from './scenario/limits.js';
export { COMMON_SHAPE, jsonSchemaOf } from './scenario/schema.js';
export { formatIssue, formatPath, loadScenarioText } from './scenario/load.js';
export { fileIssue, folderIssue } from './scenario/decode.js';
export { SYSTEMS, systemById } from './systems/registry.js';
export { metricDocsOf, sidesLines } from './systems/metric-docs.js';
export { shortName } from './systems/chart-kit.js';
export { los } from './systems/cry-havoc/los.js';
export { suggest } from './text/suggest.js';
