// KeyedLock moved to the shared kernel (plan quotas serialise per account with it too).
export { KeyedLock } from '../../shared/keyed-lock';
