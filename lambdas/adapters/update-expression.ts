/** Builds a DynamoDB UpdateExpression from plain SET/REMOVE/ADD lists, with every name aliased (ADD: a number added, or a set's members). */
export function updateExpression(
  set: Record<string, unknown>,
  remove: readonly string[] = [],
  add: Record<string, unknown> = {},
) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const removes: string[] = [];
  for (const [key, value] of Object.entries(set)) {
    if (value === undefined) {
      removes.push(`#${key}`);
    } else {
      sets.push(`#${key} = :${key}`);
      values[`:${key}`] = value;
    }
    names[`#${key}`] = key;
  }
  for (const key of remove) {
    removes.push(`#${key}`);
    names[`#${key}`] = key;
  }
  const adds = Object.entries(add).map(([key, value]) => {
    names[`#${key}`] = key;
    values[`:add_${key}`] = value;
    return `#${key} :add_${key}`;
  });
  const parts = [
    sets.length ? `SET ${sets.join(', ')}` : '',
    removes.length ? `REMOVE ${removes.join(', ')}` : '',
    adds.length ? `ADD ${adds.join(', ')}` : '',
  ];
  return {
    UpdateExpression: parts.filter(Boolean).join(' '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
