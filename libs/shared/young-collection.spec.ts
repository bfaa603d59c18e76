import { minorCollection, YoungCollector } from './young-collection';

describe('YoungCollector', () => {
  it('collects once every `everyBytes` read, not before', () => {
    let collections = 0;
    const young = new YoungCollector(1000, () => collections++);
    young.read(400);
    young.read(599);
    expect(collections).toBe(0);
    young.read(1);
    expect(collections).toBe(1);
    // The count starts again after each collection.
    young.read(999);
    expect(collections).toBe(1);
    young.read(5000);
    expect(collections).toBe(2);
  });

  it("runs V8's minor collection without exposing gc to the process", () => {
    const collect = minorCollection();
    expect(() => collect()).not.toThrow();
    expect(minorCollection()).toBe(collect);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });
});
