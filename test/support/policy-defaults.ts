import { DEFAULT_ARCHIVE_POLICY } from '#domain/archive.ts';
import { DEFAULT_AUTO_PAUSE_POLICY } from '#domain/auto-pause.ts';
import { DEFAULT_NOTICE_POLICY } from '#domain/notices.ts';
import { DEFAULT_CUSTOMER_PAUSE_LIMIT, DEFAULT_CUSTOMER_REPLAY_LIMIT } from '#domain/rate-limit.ts';
import { DEFAULT_REPLAY_POLICY } from '#domain/replay.ts';
import { DEFAULT_RETENTION } from '#domain/retention.ts';

/** Every policy dependency as the domain defines its default: what policiesFrom() must give back for an unset environment. */
export const DOMAIN_POLICY_DEFAULTS = {
  replayPolicy: DEFAULT_REPLAY_POLICY,
  customerReplayLimit: DEFAULT_CUSTOMER_REPLAY_LIMIT,
  customerPauseLimit: DEFAULT_CUSTOMER_PAUSE_LIMIT,
  autoPause: DEFAULT_AUTO_PAUSE_POLICY,
  retention: DEFAULT_RETENTION,
  archivePolicy: DEFAULT_ARCHIVE_POLICY,
  noticePolicy: DEFAULT_NOTICE_POLICY,
};
