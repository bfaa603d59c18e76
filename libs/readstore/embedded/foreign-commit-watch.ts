/**
 * Tells the embedded read store when another process has committed to its SQLite file,
 * so it can drop what it keeps in memory (parsed documents, lookups, the catalogue of
 * collections) that those commits may have made stale.
 *
 * `PRAGMA data_version` changes whenever another connection commits, which includes this
 * store's own writer thread. Every write transaction also counts itself in `rs_writers`
 * under its store's id (see commitCounter), so when the version moved, the commits of the
 * other writers tell own commits (nothing to drop) from foreign ones.
 *
 * Asked before reads, it goes to SQLite at most once per event-loop turn: a request's or a
 * batch's reads share one check, and a process nobody else writes to pays one cheap
 * pragma per turn (plus one small query per commit of its own writer thread).
 */
import Database from 'better-sqlite3';

export class ForeignCommitWatch {
  private readonly dataVersion: Database.Statement;
  private readonly foreignCommits: Database.Statement;
  private version: number;
  private foreign: number;
  private checkedThisTurn = false;
  private readonly nextTurn = () => {
    this.checkedThisTurn = false;
  };

  constructor(
    db: Database.Database,
    private readonly writer: string,
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.foreignCommits = db.prepare('SELECT total(commits) FROM rs_writers WHERE writer <> ?').pluck();
    this.version = this.dataVersion.get() as number;
    this.foreign = this.foreignCommits.get(writer) as number;
  }

  /**
   * Makes the next check go to SQLite even within this turn: the caller has learnt, from
   * elsewhere, of a commit it must see (a position another process published).
   */
  lookAgain(): void {
    this.checkedThisTurn = false;
  }

  /** Whether another process has committed since the last time this answered true (or since start). */
  changedElsewhere(): boolean {
    if (this.checkedThisTurn) return false;
    this.checkedThisTurn = true;
    setImmediate(this.nextTurn);
    const version = this.dataVersion.get() as number;
    if (version === this.version) return false;
    this.version = version;
    const foreign = this.foreignCommits.get(this.writer) as number;
    if (foreign === this.foreign) return false;
    this.foreign = foreign;
    return true;
  }
}
