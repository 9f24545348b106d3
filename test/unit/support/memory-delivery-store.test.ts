/** The in-memory half of the DeliveryStore contract; the DynamoDB half is test/integration/delivery-store-contract.test.ts. */
import { deliveryStoreContract } from '#test/delivery-store-contract.ts';
import { InMemoryDeliveryStore } from '#test/memory-delivery-store.ts';

deliveryStoreContract('in memory', async () => ({ store: new InMemoryDeliveryStore(), dispose: async () => {} }));
